package org.mxnetcpp;

import java.util.Arrays;

/**
 * The attributes of one typed operator call being built (used by the generated {@code Ops}):
 * string-form key/value pairs, a later value replacing an earlier one. Not thread-safe: a builder
 * belongs to the thread filling it.
 */
final class OpArgs {
  private final Op.Lazy op;
  private String[] keys = new String[4];
  private String[] values = new String[4];
  private int n;

  OpArgs(Op.Lazy op) {
    this.op = op;
  }

  OpArgs set(String key, String value) {
    for (int i = 0; i < n; i++) {
      if (keys[i].equals(key)) {
        values[i] = value;
        return this;
      }
    }
    if (n == keys.length) {
      keys = Arrays.copyOf(keys, 2 * n);
      values = Arrays.copyOf(values, 2 * n);
    }
    keys[n] = key;
    values[n++] = value;
    return this;
  }

  NDArray[] run(Ctx ctx, NDArray[] inputs) {
    return op.get().call(ctx, inputs, Arrays.copyOf(keys, n), Arrays.copyOf(values, n));
  }

  /** The inputs without trailing nulls (omitted optional inputs, e.g. a bias with no_bias). */
  static NDArray[] inputs(NDArray... in) {
    int k = in.length;
    while (k > 0 && in[k - 1] == null) {
      k--;
    }
    return k == in.length ? in : Arrays.copyOf(in, k);
  }
}

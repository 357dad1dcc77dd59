package org.mxnetcpp;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * S3-S6 of ../shared/BINDINGS.md need C ABI families libmxc does not have yet (gluon: model zoo,
 * Block call/hybridize/export, SymbolBlock imports, collect_params, Parameter, Trainer, losses;
 * image decode; the Fashion-MNIST dataset and loader). They are PENDING: disabled with the reason,
 * so run_tests.sh counts them as skipped. bindings/java/CAPI_REQUESTS.md lists what they need.
 */
class PendingTest {
  @Test
  @Disabled(
      "PENDING S4: waits for the C ABI's gluon family (model zoo LeNet, Trainer, losses, export)"
          + " and the Fashion-MNIST dataset/loader")
  void s4Training() {}

  @Test
  @Disabled(
      "PENDING S5: waits for the C ABI's gluon family (collect_params, Parameter lr_mult/grad_req,"
          + " save/load_parameters)")
  void s5Parameters() {}

  @Test
  @Disabled(
      "PENDING S6: waits for the C ABI's gluon family (a hybridized Block called from 8 threads);"
          + " ConcurrencyTest runs the same ExecutorService pattern on operators now")
  void s6HybridizedBlockConcurrency() {}
}

package org.mxnetcpp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters {@link Block#collectParams} selected (mxnet.gluon.ParameterDict), in registration
 * order, by structured name; setters apply to every parameter (like
 * {@code net.collect_params().setattr('lr_mult', 0.1)}).
 *
 * <p>Ownership: closing the dict closes its {@link Parameter}s (each is also owned by the
 * {@link NDScope} that was current when it was collected).
 *
 * <p>Threads: immutable list; the parameters' own rules apply.
 */
public final class ParameterDict implements Iterable<Parameter>, AutoCloseable {
  private final List<Parameter> params;
  private final Map<String, Parameter> byName = new LinkedHashMap<>();

  ParameterDict(Parameter[] params) {
    this.params = List.of(params);
    for (Parameter p : params) {
      byName.put(p.name(), p);
    }
  }

  /**
   * How many parameters were selected.
   *
   * @return the count
   */
  public int size() {
    return params.size();
  }

  /**
   * The structured names in registration order ("features.0.weight", ...).
   *
   * @return the names
   */
  public List<String> names() {
    return Collections.unmodifiableList(new ArrayList<>(byName.keySet()));
  }

  /**
   * The parameters in registration order.
   *
   * @return an unmodifiable list
   */
  public List<Parameter> list() {
    return params;
  }

  /**
   * The parameter named {@code name}.
   *
   * @param name a structured name
   * @return the parameter
   * @throws MXNetException NOT_FOUND when no selected parameter has that name
   */
  public Parameter get(String name) {
    Parameter p = byName.get(name);
    if (p == null) {
      throw new MXNetException(
          MXNetException.NOT_FOUND, "ParameterDict: no parameter named '" + name + "'");
    }
    return p;
  }

  /**
   * Sets lr_mult of every parameter. Writes the parameters.
   *
   * @param value the multiplier
   */
  public void setLrMult(double value) {
    for (Parameter p : params) {
      p.setLrMult(value);
    }
  }

  /**
   * Sets wd_mult of every parameter. Writes the parameters.
   *
   * @param value the multiplier
   */
  public void setWdMult(double value) {
    for (Parameter p : params) {
      p.setWdMult(value);
    }
  }

  /**
   * Sets grad_req of every parameter. Writes the parameters.
   *
   * @param req the request
   */
  public void setGradReq(GradReq req) {
    for (Parameter p : params) {
      p.setGradReq(req);
    }
  }

  /** Sets every gradient to zero. Writes the parameters. */
  public void zeroGrad() {
    for (Parameter p : params) {
      if (p.gradReq() != GradReq.NULL) {
        p.zeroGrad();
      }
    }
  }

  @Override
  public Iterator<Parameter> iterator() {
    return params.iterator();
  }

  /** Closes every parameter object (idempotent). */
  @Override
  public void close() {
    for (Parameter p : params) {
      p.close();
    }
  }

  @Override
  public String toString() {
    return "ParameterDict" + names();
  }
}

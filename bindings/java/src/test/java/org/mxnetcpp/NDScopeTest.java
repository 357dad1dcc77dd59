package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** NDScope ownership: closes what it owns, detach/attach, nesting, leak-free. */
class NDScopeTest {
  @Test
  void closesEverythingCreatedInsideExceptDetached() {
    Ctx.current(); // the thread's ctx (created on first use, not scoped) exists before counting
    MXNet.waitAll();
    long before = MXNet.handleStats().live();
    NDArray kept;
    NDArray x;
    Symbol s;
    try (NDScope scope = new NDScope()) {
      x = NDArray.create(new float[] {1, -2, 3});
      NDArray y = Ops.relu(x);
      s = Symbol.variable("v");
      kept = scope.detach(Ops.sum(y));
      assertEquals(3, scope.size());
      y.close(); // closed resources leave the scope
      assertEquals(2, scope.size());
    }
    assertTrue(x.isClosed());
    assertTrue(s.isClosed());
    assertFalse(kept.isClosed());
    assertArrayEquals(new float[] {4}, kept.toFloatArray());
    kept.close();
    MXNet.waitAll();
    assertEquals(before, MXNet.handleStats().live(), "no handle leaked");
  }

  @Test
  void nestedScopesAndAttach() {
    NDArray inner;
    NDArray moved;
    try (NDScope outer = new NDScope()) {
      try (NDScope in = new NDScope()) {
        inner = NDArray.zeros(1);
        moved = outer.attach(NDArray.zeros(2));
        assertEquals(1, in.size());
      }
      assertTrue(inner.isClosed());
      assertFalse(moved.isClosed(), "attached to the outer scope");
      assertEquals(1, outer.size());
      NDArray again = NDArray.zeros(1);
      assertEquals(2, outer.size(), "the outer scope is current again");
      assertFalse(again.isClosed());
    }
    assertTrue(moved.isClosed());
  }

  @Test
  void closingOuterClosesOpenInner() {
    NDArray a;
    NDScope outer = new NDScope();
    NDScope inner = new NDScope();
    a = NDArray.zeros(1);
    outer.close();
    assertTrue(a.isClosed(), "inner scope closed with the outer one");
    inner.close(); // idempotent
    NDArray b = NDArray.zeros(1); // no scope now: owned by the caller
    assertFalse(b.isClosed());
    b.close();
  }

  @Test
  void detachOfForeignResourceFails() {
    NDArray free = NDArray.zeros(1);
    try (NDScope scope = new NDScope()) {
      assertThrows(MXNetException.class, () -> scope.detach(free));
    }
    assertFalse(free.isClosed());
    free.close();
  }

  @Test
  void scopeClosedFromAnotherThread() throws Exception {
    NDScope scope = new NDScope();
    NDArray a = NDArray.zeros(1);
    Thread t = new Thread(scope::close);
    t.start();
    t.join();
    assertTrue(a.isClosed());
    NDArray b = NDArray.zeros(1); // the closed scope no longer collects
    assertFalse(b.isClosed());
    b.close();
  }

  @Test
  void escapeHandsTheResourceToTheEnclosingScope() {
    NDArray kept;
    NDArray temp;
    try (NDScope outer = new NDScope()) {
      try (NDScope inner = new NDScope()) {
        temp = NDArray.zeros(2);
        kept = inner.escape(NDArray.zeros(3));
        assertEquals(1, inner.size());
      }
      assertTrue(temp.isClosed());
      assertFalse(kept.isClosed());
      assertEquals(1, outer.size());
    }
    assertTrue(kept.isClosed());
    // Without an enclosing scope, escape detaches.
    NDArray free;
    try (NDScope only = new NDScope()) {
      free = only.escape(NDArray.zeros(1));
    }
    assertFalse(free.isClosed());
    free.close();
  }
}

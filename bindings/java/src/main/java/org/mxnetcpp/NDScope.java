package org.mxnetcpp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A memory scope for native resources, used with try-with-resources (like DJL's NDManager): every
 * {@link NDArray}, {@link Symbol} and {@link Ctx} created on this thread while the scope is the
 * innermost open one is owned by it and closed when it closes, unless {@link #detach detached}.
 *
 * <pre>{@code
 * NDArray kept;
 * try (var scope = new NDScope()) {
 *   NDArray x = NDArray.create(new float[] {1, 2, 3}, 3);
 *   NDArray y = Ops.relu(x);              // owned by scope
 *   kept = scope.detach(Ops.sum(y));      // survives the scope
 * }                                       // x and y are closed here
 * }</pre>
 *
 * <p>Scopes nest per thread; closing one on its thread also closes the scopes opened inside it on
 * that thread that are still open. Resources closed individually leave their scope.
 *
 * <p>Threads: a scope collects the resources created on the thread that opened it. {@link #detach},
 * {@link #attach}, {@link #size} and {@link #close} may be called from any thread (they
 * synchronize; closed from another thread, the scope stops collecting at once and leaves the
 * opening thread's scope stack lazily); resources of the scope may be used and closed on any
 * thread.
 */
public final class NDScope implements AutoCloseable {
  private static final ThreadLocal<ArrayDeque<NDScope>> STACK =
      ThreadLocal.withInitial(ArrayDeque::new);

  private final Set<NativeResource> owned = new LinkedHashSet<>();
  private final ArrayDeque<NDScope> stack;
  private final Thread thread;
  private volatile boolean closed;
  /** The innermost open scope of the thread when this one was opened, or null. */
  private final NDScope parent;

  /** Opens a scope on the calling thread; it becomes the innermost one. */
  public NDScope() {
    stack = STACK.get();
    thread = Thread.currentThread();
    parent = current();
    stack.push(this);
  }

  /** The calling thread's innermost open scope, or null. */
  static NDScope current() {
    ArrayDeque<NDScope> s = STACK.get();
    NDScope top = s.peek();
    while (top != null && top.closed) { // closed from another thread
      s.pop();
      top = s.peek();
    }
    return top;
  }

  static NDScope ownerOf(NativeResource r) {
    // The owner field is only written under the owner's lock; a stale read is re-checked there.
    return r.scope;
  }

  synchronized void adopt(NativeResource r) {
    if (closed) {
      return;
    }
    owned.add(r);
    r.scope = this;
  }

  synchronized void forget(NativeResource r) {
    if (r.scope == this) {
      owned.remove(r);
      r.scope = null;
    }
  }

  /**
   * Removes {@code resource} from this scope: it is no longer closed with the scope, and the
   * caller owns it (close it, or leave it to the Cleaner).
   *
   * @param resource a resource owned by this scope
   * @param <T> the resource type
   * @return {@code resource}
   * @throws MXNetException INVALID_ARGUMENT when this scope does not own it (or it is closed)
   */
  public synchronized <T extends NativeResource> T detach(T resource) {
    if (resource.scope != this || !owned.remove(resource)) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT, "NDScope.detach: the resource is not owned by this scope");
    }
    resource.scope = null;
    return resource;
  }

  /**
   * Hands {@code resource} from this scope to the enclosing one (the innermost open scope of the
   * thread when this one was opened), or detaches it when there is none: for results a method
   * computes inside a scope of its own and returns.
   *
   * @param resource a resource owned by this scope
   * @param <T> the resource type
   * @return {@code resource}
   * @throws MXNetException INVALID_ARGUMENT when this scope does not own it (or it is closed)
   */
  public <T extends NativeResource> T escape(T resource) {
    detach(resource);
    NDScope p = parent;
    if (p != null && !p.closed) {
      try {
        p.attach(resource);
      } catch (MXNetException e) {
        // The parent closed meanwhile (from another thread): the caller owns the resource.
      }
    }
    return resource;
  }

  /**
   * Makes this scope the owner of {@code resource} (taking it from its previous scope, if any).
   *
   * @param resource an open resource
   * @param <T> the resource type
   * @return {@code resource}
   * @throws MXNetException INVALID_ARGUMENT when this scope or the resource is closed
   */
  public <T extends NativeResource> T attach(T resource) {
    resource.handle(); // throws when closed
    NDScope old = resource.scope;
    if (old != null && old != this) {
      old.forget(resource);
    }
    synchronized (this) {
      if (closed) {
        throw new MXNetException(MXNetException.INVALID_ARGUMENT, "NDScope.attach: scope is closed");
      }
      owned.add(resource);
      resource.scope = this;
    }
    return resource;
  }

  /**
   * The number of open resources this scope owns.
   *
   * @return the count
   */
  public synchronized int size() {
    return owned.size();
  }

  /**
   * Closes every resource the scope owns (in creation order) and the scopes opened inside it on
   * this thread. Idempotent.
   */
  @Override
  public void close() {
    // Inner scopes first (they were opened later on the same thread).
    while (Thread.currentThread() == thread && stack.contains(this)) {
      NDScope top = stack.pop();
      if (top != this) {
        top.close();
      }
    }
    List<NativeResource> toClose;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = new ArrayList<>(owned);
      owned.clear();
      for (NativeResource r : toClose) {
        r.scope = null;
      }
    }
    for (NativeResource r : toClose) {
      r.closeFromScope();
    }
  }
}

package org.mxnetcpp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Base of tests whose arrays live in one NDScope per test method (closed after it). */
abstract class ScopedTest {
  private NDScope scope;

  @BeforeEach
  void openScope() {
    scope = new NDScope();
  }

  @AfterEach
  void closeScope() {
    scope.close();
  }
}

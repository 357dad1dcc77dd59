package org.mxnetcpp;

/**
 * Element types, with MXNet's type flags (as stored in .params files) and NumPy names. Which Java
 * buffer carries each type when copying in or out: FLOAT32 float[]/FloatBuffer, FLOAT64
 * double[]/DoubleBuffer, INT32 and UINT32 int[]/IntBuffer, INT64 and UINT64 long[]/LongBuffer,
 * INT16, UINT16, FLOAT16 and BFLOAT16 short[]/ShortBuffer (raw bits for the 16-bit floats), UINT8,
 * INT8 and BOOL byte[]; a ByteBuffer carries the raw bytes (native byte order) of any type.
 */
public enum DType {
  /** 32-bit IEEE float, "float32" (flag 0). */
  FLOAT32(0, 4, "float32"),
  /** 64-bit IEEE float, "float64" (flag 1). */
  FLOAT64(1, 8, "float64"),
  /** 16-bit IEEE float, "float16" (flag 2). */
  FLOAT16(2, 2, "float16"),
  /** Unsigned 8-bit integer, "uint8" (flag 3). */
  UINT8(3, 1, "uint8"),
  /** Signed 32-bit integer, "int32" (flag 4). */
  INT32(4, 4, "int32"),
  /** Signed 8-bit integer, "int8" (flag 5). */
  INT8(5, 1, "int8"),
  /** Signed 64-bit integer, "int64" (flag 6). */
  INT64(6, 8, "int64"),
  /** Boolean, one byte (0 or 1), "bool" (flag 7). */
  BOOL(7, 1, "bool"),
  /** Signed 16-bit integer, "int16" (flag 8). */
  INT16(8, 2, "int16"),
  /** Unsigned 16-bit integer, "uint16" (flag 9). */
  UINT16(9, 2, "uint16"),
  /** Unsigned 32-bit integer, "uint32" (flag 10). */
  UINT32(10, 4, "uint32"),
  /** Unsigned 64-bit integer, "uint64" (flag 11). */
  UINT64(11, 8, "uint64"),
  /** bfloat16 (the upper half of a float32), "bfloat16" (flag 12). */
  BFLOAT16(12, 2, "bfloat16");

  private final int code;
  private final int size;
  private final String mxName;

  DType(int code, int size, String mxName) {
    this.code = code;
    this.size = size;
    this.mxName = mxName;
  }

  /**
   * MXNet's type flag (mxc_dtype).
   *
   * @return the flag, 0 to 12
   */
  public int code() {
    return code;
  }

  /**
   * Size of one element.
   *
   * @return bytes per element (float32: 4, bool: 1)
   */
  public int size() {
    return size;
  }

  /**
   * MXNet/NumPy name, as operator attributes take it.
   *
   * @return e.g. "float32"
   */
  public String mxName() {
    return mxName;
  }

  /**
   * The dtype with MXNet type flag {@code code}.
   *
   * @param code an mxc_dtype value
   * @return the dtype
   * @throws MXNetException INVALID_ARGUMENT for an unknown flag
   */
  public static DType of(int code) {
    for (DType d : values()) {
      if (d.code == code) {
        return d;
      }
    }
    throw new MXNetException(MXNetException.INVALID_ARGUMENT, "DType.of: unknown dtype flag " + code);
  }

  /**
   * The dtype named {@code name} ("float32", "int64", ...).
   *
   * @param name an MXNet/NumPy dtype name
   * @return the dtype
   * @throws MXNetException INVALID_ARGUMENT for an unknown name
   */
  public static DType of(String name) {
    for (DType d : values()) {
      if (d.mxName.equals(name)) {
        return d;
      }
    }
    throw new MXNetException(
        MXNetException.INVALID_ARGUMENT, "DType.of: unknown dtype name '" + name + "'");
  }

  @Override
  public String toString() {
    return mxName;
  }
}

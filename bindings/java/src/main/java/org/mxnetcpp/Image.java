package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;

/**
 * Image decoding and resizing (mx.image). Decoded images are (H, W, C) uint8 arrays (HWC layout,
 * RGB unless asked for BGR; C = 1 for grayscale). Threads: any.
 */
public final class Image {
  private Image() {}

  /** Resize filters (OpenCV's codes, as mx.image). */
  public enum Interp {
    /** Nearest neighbour (0). */
    NEAREST(0),
    /** Bilinear (1). */
    BILINEAR(1),
    /** Bicubic (2). */
    BICUBIC(2),
    /** Pixel area (3). */
    AREA(3),
    /** Lanczos (4). */
    LANCZOS(4);

    private final int code;

    Interp(int code) {
      this.code = code;
    }

    /**
     * The C ABI's code (MXC_INTERP_*).
     *
     * @return 0 to 4
     */
    public int code() {
      return code;
    }

    /**
     * By MXNet's name ("nearest", "bilinear", "bicubic", "area", "lanczos").
     *
     * @param name the name
     * @return the filter
     * @throws MXNetException INVALID_ARGUMENT for another name
     */
    public static Interp of(String name) {
      for (Interp i : values()) {
        if (i.name().equalsIgnoreCase(name)) {
          return i;
        }
      }
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          "interp must be nearest, bilinear, bicubic, area or lanczos, got '" + name + "'");
    }
  }

  /**
   * Decodes a JPEG or PNG to an RGB (H, W, 3) uint8 array (mx.image.imdecode).
   *
   * @param bytes the file's bytes
   * @return the image
   * @throws MXNetException INVALID_ARGUMENT / DATA_LOSS for data that is no complete JPEG/PNG
   */
  public static NDArray decode(byte[] bytes) {
    return decode(bytes, true, true);
  }

  /**
   * Decodes a JPEG or PNG (mx.image.imdecode(buf, flag, to_rgb)).
   *
   * @param bytes the file's bytes
   * @param color true: 3 channels, false: 1 (grayscale)
   * @param toRgb with color: RGB (true) or BGR (false) order
   * @return the (H, W, C) uint8 image
   * @throws MXNetException as {@link #decode(byte[])}
   */
  public static NDArray decode(byte[] bytes, boolean color, boolean toRgb) {
    if (bytes == null) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "Image.decode: bytes is null");
    }
    return new NDArray(Native.imageDecode(bytes, color ? 1 : 0, toRgb));
  }

  /**
   * Reads and decodes an image file to RGB (H, W, 3) uint8 (mx.image.imread).
   *
   * @param path a JPEG or PNG file
   * @return the image
   * @throws MXNetException NOT_FOUND naming a missing path; as {@link #decode(byte[])}
   */
  public static NDArray read(Path path) {
    return read(path, true, true);
  }

  /**
   * Reads and decodes an image file.
   *
   * @param path a JPEG or PNG file
   * @param color true: 3 channels, false: 1 (grayscale)
   * @param toRgb with color: RGB (true) or BGR (false) order
   * @return the (H, W, C) uint8 image
   * @throws MXNetException as {@link #read(Path)}
   */
  public static NDArray read(Path path, boolean color, boolean toRgb) {
    return new NDArray(Native.imageRead(path.toString(), color ? 1 : 0, toRgb));
  }

  /**
   * Resizes an (H, W, C) uint8/float32 image so its shorter side is {@code size}, antialiased
   * (mx.image.resize_short); the long side is floor(long * size / short), or rounded to the
   * nearest pixel with {@code roundLongSide} (what {@code mxnet classify} uses).
   *
   * @param image the image
   * @param size the new short side (&gt; 0)
   * @param interp the filter
   * @param roundLongSide round instead of truncating the long side
   * @return the resized image, same dtype
   * @throws MXNetException INVALID_ARGUMENT for rank != 3 or size &lt;= 0
   */
  public static NDArray resizeShort(NDArray image, long size, Interp interp, boolean roundLongSide) {
    try {
      return new NDArray(
          Native.imageResizeShort(image.handle(), size, interp.code(), roundLongSide));
    } finally {
      Reference.reachabilityFence(image);
    }
  }
}

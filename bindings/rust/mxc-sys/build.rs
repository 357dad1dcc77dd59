//! Finds libmxc.so and tells Cargo how to link it.
//!
//! Search order: `$MXC_LIB_DIR` (a folder holding `libmxc.so` or `libmxc.so.1`), then
//! `bazel-bin/c_api/` of the enclosing mxnet-cpp checkout (found by walking up from this crate).
//! A folder with only `libmxc.so.1` (Bazel runfiles) gets a `libmxc.so` link in `$OUT_DIR` so
//! `-lmxc` resolves. Exports `DEP_MXC_ROOT` (the library's folder, for rpaths) and
//! `DEP_MXC_INCLUDE` (the headers' folder) to dependent build scripts.
use std::env;
use std::path::{Path, PathBuf};

const SONAME: &str = "libmxc.so.1";

fn has_lib(dir: &Path) -> bool {
    dir.join("libmxc.so").is_file() || dir.join(SONAME).is_file()
}

fn find_lib_dir(manifest: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = env::var_os("MXC_LIB_DIR") {
        let dir = PathBuf::from(dir);
        return if has_lib(&dir) {
            Ok(dir)
        } else {
            Err(format!(
                "MXC_LIB_DIR={} holds neither libmxc.so nor {SONAME}",
                dir.display()
            ))
        };
    }
    for root in manifest.ancestors() {
        let dir = root.join("bazel-bin").join("c_api");
        if has_lib(&dir) {
            return Ok(dir);
        }
    }
    Err(format!(
        "libmxc.so not found: build it with `./bazelw build //c_api:libmxc.so.1 //c_api:libmxc_so` \
         in the mxnet-cpp checkout above {}, or set MXC_LIB_DIR to the folder holding it",
        manifest.display()
    ))
}

fn find_include_dir(manifest: &Path) -> Option<PathBuf> {
    if let Some(dir) = env::var_os("MXC_INCLUDE_DIR") {
        return Some(PathBuf::from(dir));
    }
    manifest
        .ancestors()
        .map(|root| root.join("c_api").join("include"))
        .find(|dir| dir.join("mxc").join("mxc.h").is_file())
}

fn main() {
    println!("cargo:rerun-if-env-changed=MXC_LIB_DIR");
    println!("cargo:rerun-if-env-changed=MXC_INCLUDE_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let dir = match find_lib_dir(&manifest) {
        Ok(dir) => dir.canonicalize().unwrap_or(dir),
        Err(msg) => panic!("mxc-sys: {msg}"),
    };
    let mut link_dir = dir.clone();
    if !dir.join("libmxc.so").is_file() {
        // Only the soname file: link through a development-name symlink of our own.
        let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
        let link = out.join("libmxc.so");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join(SONAME), &link)
            .unwrap_or_else(|e| panic!("mxc-sys: cannot link {}: {e}", link.display()));
        link_dir = out;
    }
    println!("cargo:rustc-link-search=native={}", link_dir.display());
    println!("cargo:rustc-link-lib=dylib=mxc");
    // This crate's own tests find the library at run time without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    println!("cargo:root={}", dir.display());
    if let Some(inc) = find_include_dir(&manifest) {
        println!("cargo:include={}", inc.display());
        println!("cargo:rustc-env=MXC_SYS_INCLUDE_DIR={}", inc.display());
    }
}

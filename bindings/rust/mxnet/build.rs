//! Embeds an rpath to libmxc.so (found by mxc-sys's build script) in this crate's tests,
//! examples and benchmarks, so they run without LD_LIBRARY_PATH.
fn main() {
    if let Ok(dir) = std::env::var("DEP_MXC_ROOT") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}

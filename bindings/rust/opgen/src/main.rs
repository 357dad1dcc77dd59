//! `cargo run -p mxnet-opgen [OUT]`: writes the typed operator functions generated from the
//! loaded libmxc.so's operator metadata to OUT (default: mxnet/src/ops/generated.rs).
use std::path::PathBuf;

fn main() {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(mxnet_opgen::GENERATED_PATH)
        });
    let text = match mxnet_opgen::generate() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mxnet-opgen: {e}");
            std::process::exit(1);
        }
    };
    // Write to a temporary name and rename, so a failed run never leaves half a file.
    let tmp = out.with_extension("rs.tmp");
    if let Err(e) = std::fs::write(&tmp, &text).and_then(|_| std::fs::rename(&tmp, &out)) {
        eprintln!("mxnet-opgen: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
    println!("wrote {} ({} bytes)", out.display(), text.len());
}

//! The declarations of `src/lib.rs` cannot drift from `c_api/include/mxc/*.h`:
//!
//! 1. Every Rust declaration is translated to C and compiled against the headers with
//!    `-Werror`: each function is assigned to a pointer of the translated type (a parameter or
//!    return type that differs, even in `const`, is an incompatible-pointer error), each struct
//!    gets a mirror whose size and field offsets must equal the real one's and whose field types
//!    must match (`_Generic`), each alias must name the same C type, each constant must equal
//!    the header's value.
//! 2. Every function, struct, opaque type, enum/typedef, enumerator and `#define` constant of the
//!    headers must be declared in Rust.
//!
//! Negative tests mutate the Rust source (a parameter type, a field, a constant, a missing
//! function) and require the checker to fail, so the check itself is tested.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

// ---------- A tokenizer and parser for the subset of Rust that lib.rs uses. ----------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    Str(String),
    Punct(String),
}

fn tokenize(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            i += src[i..].find("*/").expect("unterminated comment") + 2;
        } else if c == '"' {
            let end = src[i + 1..].find('"').expect("unterminated string") + i + 1;
            out.push(Tok::Str(src[i + 1..end].to_string()));
            i = end + 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            if src[i..].starts_with("r#") {
                i += 2;
            }
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(src[start..i].to_string()));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Num(src[s..i].replace('_', "")));
        } else {
            let two = src.get(i..i + 2).unwrap_or("");
            if ["->", "::", "<<", ">>"].contains(&two) {
                out.push(Tok::Punct(two.to_string()));
                i += 2;
            } else {
                out.push(Tok::Punct(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
enum Ty {
    Named(String),
    Unit,
    Ptr { is_const: bool, to: Box<Ty> },
    Fn { params: Vec<Ty>, ret: Box<Ty> },
}

#[derive(Debug, Default)]
struct Decls {
    opaque: Vec<String>,
    consts: Vec<(String, String)>, // name, C expression of the value
    aliases: Vec<(String, Ty)>,
    structs: Vec<(String, Vec<(String, Ty)>)>,
    fns: Vec<(String, Vec<Ty>, Ty)>,
}

struct Parser {
    t: Vec<Tok>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn next(&mut self) -> Tok {
        let t = self
            .t
            .get(self.i)
            .cloned()
            .unwrap_or_else(|| panic!("unexpected end"));
        self.i += 1;
        t
    }
    fn is(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(p)) | Some(Tok::Ident(p)) if p == s)
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.is(s) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) {
        if !self.eat(s) {
            panic!("expected `{s}`, found {:?} (token {})", self.peek(), self.i);
        }
    }
    fn ident(&mut self) -> String {
        match self.next() {
            Tok::Ident(s) => s,
            t => panic!("expected an identifier, found {t:?}"),
        }
    }
    /// Skips a balanced group starting at the current opening bracket.
    fn skip_group(&mut self) {
        let (open, close) = match self.next() {
            Tok::Punct(p) if p == "{" => ("{", "}"),
            Tok::Punct(p) if p == "(" => ("(", ")"),
            Tok::Punct(p) if p == "[" => ("[", "]"),
            t => panic!("expected a group, found {t:?}"),
        };
        let mut depth = 1;
        while depth > 0 {
            match self.next() {
                Tok::Punct(p) if p == open => depth += 1,
                Tok::Punct(p) if p == close => depth -= 1,
                _ => {}
            }
        }
    }
    fn ty(&mut self) -> Ty {
        if self.eat("*") {
            let is_const = if self.eat("const") {
                true
            } else {
                self.expect("mut");
                false
            };
            return Ty::Ptr {
                is_const,
                to: Box::new(self.ty()),
            };
        }
        if self.eat("Option") {
            self.expect("<");
            let f = self.ty();
            assert!(
                matches!(f, Ty::Fn { .. }),
                "Option<..> only wraps fn pointers here"
            );
            self.eat(","); // rustfmt's trailing comma in a multi-line Option<..>
            self.expect(">");
            return f;
        }
        if self.is("unsafe") || self.is("extern") || self.is("fn") {
            self.eat("unsafe");
            if self.eat("extern") {
                match self.next() {
                    Tok::Str(abi) if abi == "C" => {}
                    t => panic!("expected extern \"C\", found {t:?}"),
                }
            }
            self.expect("fn");
            let params = self.params();
            let ret = self.ret();
            return Ty::Fn {
                params,
                ret: Box::new(ret),
            };
        }
        if self.eat("(") {
            self.expect(")");
            return Ty::Unit;
        }
        let mut name = self.ident();
        while self.eat("::") {
            name = self.ident();
        }
        Ty::Named(name)
    }
    fn params(&mut self) -> Vec<Ty> {
        self.expect("(");
        let mut out = Vec::new();
        while !self.eat(")") {
            // `name: Type` (a name is optional in fn pointer types).
            if matches!(self.t.get(self.i + 1), Some(Tok::Punct(p)) if p == ":") {
                self.ident();
                self.expect(":");
            }
            out.push(self.ty());
            self.eat(",");
        }
        out
    }
    fn ret(&mut self) -> Ty {
        if self.eat("->") {
            self.ty()
        } else {
            Ty::Unit
        }
    }
    /// The C text of a constant expression up to `;`.
    fn expr(&mut self) -> String {
        let mut s = String::new();
        loop {
            match self.next() {
                Tok::Punct(p) if p == ";" => return s.trim().to_string(),
                Tok::Punct(p) | Tok::Ident(p) | Tok::Num(p) => {
                    s.push_str(&p);
                    s.push(' ');
                }
                t => panic!("unexpected {t:?} in a constant"),
            }
        }
    }
}

fn parse_rust(src: &str) -> Decls {
    let mut p = Parser {
        t: tokenize(src),
        i: 0,
    };
    let mut d = Decls::default();
    let mut repr_c = false;
    while p.peek().is_some() {
        if p.eat("#") {
            p.eat("!");
            let at = p.i;
            p.skip_group();
            if matches!(&p.t[at + 1], Tok::Ident(s) if s == "repr") {
                repr_c = true;
            }
            continue;
        }
        if p.eat("macro_rules") {
            p.expect("!");
            p.ident();
            p.skip_group();
            continue;
        }
        if p.eat("opaque_types") {
            p.expect("!");
            p.expect("{");
            while !p.eat("}") {
                d.opaque.push(p.ident());
                p.eat(",");
            }
            continue;
        }
        if p.eat("extern") {
            match p.next() {
                Tok::Str(abi) if abi == "C" => {}
                t => panic!("expected extern \"C\", found {t:?}"),
            }
            p.expect("{");
            while !p.eat("}") {
                if p.eat("#") {
                    p.skip_group();
                    continue;
                }
                p.expect("pub");
                p.expect("fn");
                let name = p.ident();
                let params = p.params();
                let ret = p.ret();
                p.expect(";");
                d.fns.push((name, params, ret));
            }
            continue;
        }
        p.expect("pub");
        if p.eat("use") {
            while !p.eat(";") {
                p.next();
            }
        } else if p.eat("const") {
            let name = p.ident();
            p.expect(":");
            p.ty();
            p.expect("=");
            let value = p.expr();
            d.consts.push((name, value));
        } else if p.eat("type") {
            let name = p.ident();
            p.expect("=");
            let ty = p.ty();
            p.expect(";");
            d.aliases.push((name, ty));
        } else if p.eat("struct") {
            let name = p.ident();
            assert!(repr_c, "struct {name} lacks #[repr(C)]");
            p.expect("{");
            let mut fields = Vec::new();
            while !p.eat("}") {
                p.expect("pub");
                let f = p.ident();
                p.expect(":");
                fields.push((f, p.ty()));
                p.eat(",");
            }
            d.structs.push((name, fields));
        } else {
            panic!("unexpected item at token {}: {:?}", p.i, p.peek());
        }
        repr_c = false;
    }
    d
}

// ---------- Translation to C. ----------

fn c_type(t: &Ty, d: &Decls) -> String {
    match t {
        Ty::Unit => "void".into(),
        Ty::Ptr { is_const, to } => {
            format!(
                "__typeof__({}{})*",
                c_type(to, d),
                if *is_const { " const" } else { "" }
            )
        }
        Ty::Fn { params, ret } => {
            let ps: Vec<String> = params
                .iter()
                .map(|p| format!("__typeof__({})", c_type(p, d)))
                .collect();
            let ps = if ps.is_empty() {
                "void".to_string()
            } else {
                ps.join(", ")
            };
            format!("__typeof__({}) (*)({ps})", c_type(ret, d))
        }
        Ty::Named(n) => match n.as_str() {
            "c_void" => "void".into(),
            "c_char" => "char".into(),
            "c_int" => "int".into(),
            "c_uint" => "unsigned int".into(),
            "i8" | "i16" | "i32" | "i64" => format!("int{}_t", &n[1..]),
            "u8" | "u16" | "u32" | "u64" => format!("uint{}_t", &n[1..]),
            "usize" => "size_t".into(),
            "isize" => "ptrdiff_t".into(),
            "f32" => "float".into(),
            "f64" => "double".into(),
            _ if d.opaque.contains(n) => format!("struct {n}"),
            _ if d.structs.iter().any(|s| &s.0 == n) || d.aliases.iter().any(|a| &a.0 == n) => {
                n.clone()
            }
            _ => panic!("no C translation for Rust type `{n}`"),
        },
    }
}

fn c_check_source(d: &Decls) -> String {
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdint.h>\n#include \"mxc/mxc.h\"\n\
         #define SAME_TYPE(e, T) _Generic((e), T: 1, default: 0)\n",
    );
    for o in &d.opaque {
        // The opaque type must be a struct tag the headers use (an incomplete type is fine).
        writeln!(c, "static struct {o}* rs_opaque_{o};").unwrap();
    }
    for (name, value) in &d.consts {
        writeln!(
            c,
            "_Static_assert({name} == ({value}), \"const {name} = {value}\");"
        )
        .unwrap();
    }
    for (name, ty) in &d.aliases {
        let t = c_type(ty, d);
        writeln!(
            c,
            "_Static_assert(SAME_TYPE(({name})0, {t}), \"type {name} = {t}\");"
        )
        .unwrap();
    }
    for (name, fields) in &d.structs {
        writeln!(c, "struct rs_{name} {{").unwrap();
        for (f, ty) in fields {
            writeln!(c, "  __typeof__({}) {f};", c_type(ty, d)).unwrap();
        }
        writeln!(c, "}};").unwrap();
        writeln!(
            c,
            "_Static_assert(sizeof(struct rs_{name}) == sizeof({name}), \"sizeof {name}\");\n\
             _Static_assert(_Alignof(struct rs_{name}) == _Alignof({name}), \"alignof {name}\");"
        )
        .unwrap();
        for (f, ty) in fields {
            let t = c_type(ty, d);
            writeln!(
                c,
                "_Static_assert(offsetof(struct rs_{name}, {f}) == offsetof({name}, {f}), \
                 \"offset of {name}.{f}\");\n\
                 _Static_assert(SAME_TYPE((({name}*)0)->{f}, {t}), \"type of {name}.{f}\");"
            )
            .unwrap();
        }
    }
    for (name, params, ret) in &d.fns {
        let f = Ty::Fn {
            params: params.clone(),
            ret: Box::new(ret.clone()),
        };
        writeln!(
            c,
            "static __typeof__({}) const rs_fn_{name} = {name};",
            c_type(&f, d)
        )
        .unwrap();
    }
    c
}

// ---------- What the headers declare. ----------

fn strip_c_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find("*/").expect("unterminated C comment") + 2..];
    }
    out.push_str(rest);
    out
}

fn idents(s: &str) -> Vec<String> {
    tokenize(s)
        .into_iter()
        .filter_map(|t| if let Tok::Ident(i) = t { Some(i) } else { None })
        .collect()
}

/// What the headers declare: the names of functions, typedef'd or tagged types, enumerators and
/// constants; and each struct's field names in order.
fn header_decls(include: &Path) -> (BTreeSet<String>, BTreeMap<String, Vec<String>>) {
    const MACROS: &[&str] = &[
        "MXC_API",
        "MXC_MUST_USE",
        "MXC_NOEXCEPT",
        "MXC_EXTERN_C_BEGIN",
        "MXC_EXTERN_C_END",
        "MXC_STATUS",
    ];
    let mut names = BTreeSet::new();
    let mut fields = BTreeMap::new();
    let dir = include.join("mxc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 6,
        "expected the mxc headers in {}",
        dir.display()
    );
    for f in files {
        let text = strip_c_comments(&std::fs::read_to_string(&f).unwrap());
        let mut code = String::new();
        for line in text.lines() {
            let l = line.trim();
            if let Some(rest) = l.strip_prefix("#define ") {
                let name = rest.split_whitespace().next().unwrap();
                let is_guard = name.ends_with("_H_");
                if !is_guard && !MACROS.contains(&name) && !name.contains('(') {
                    names.insert(name.to_string());
                }
            } else if !l.starts_with('#') {
                code.push_str(line);
                code.push('\n');
            }
        }
        // Enum bodies give enumerators; struct and enum bodies are then dropped, so the
        // remaining statements end at `;`.
        let mut flat = String::new();
        let mut rest = code.as_str();
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}').expect("unbalanced braces");
            let head = idents(&rest[..open]);
            let body = &rest[open + 1..close];
            if head.iter().any(|w| w == "enum") {
                for part in body.split(',') {
                    if let Some(n) = idents(part).first() {
                        names.insert(n.clone());
                    }
                }
            } else {
                let field_names = body.split(';').filter_map(|f| idents(f).last().cloned());
                fields.insert(
                    head.last().unwrap().clone(),
                    field_names.collect::<Vec<_>>(),
                );
            }
            flat.push_str(&rest[..open]);
            rest = &rest[close + 1..];
        }
        flat.push_str(rest);
        for stmt in flat.split(';') {
            let stmt = stmt.trim();
            if let Some(p) = stmt.find('(') {
                let head = &stmt[..p];
                if head.contains("MXC_STATUS") || head.contains("MXC_API") {
                    names.insert(idents(head).last().unwrap().clone());
                    continue;
                }
                if head.starts_with("typedef") {
                    // typedef R (*name)(...)
                    let inner = &stmt[p + 1..p + stmt[p..].find(')').unwrap()];
                    names.insert(idents(inner).last().unwrap().clone());
                    continue;
                }
            }
            let ids = idents(stmt);
            for (k, id) in ids.iter().enumerate() {
                if (id == "struct" || id == "enum") && k + 1 < ids.len() {
                    names.insert(ids[k + 1].clone());
                }
            }
            if stmt.starts_with("typedef") {
                names.insert(ids.last().unwrap().clone());
            }
        }
    }
    (names, fields)
}

fn rust_names(d: &Decls) -> BTreeSet<String> {
    let mut s: BTreeSet<String> = d.opaque.iter().cloned().collect();
    s.extend(d.consts.iter().map(|c| c.0.clone()));
    s.extend(d.aliases.iter().map(|c| c.0.clone()));
    s.extend(d.structs.iter().map(|c| c.0.clone()));
    s.extend(d.fns.iter().map(|c| c.0.clone()));
    s
}

// ---------- Running the check. ----------

fn include_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("MXC_INCLUDE_DIR") {
        return PathBuf::from(d);
    }
    match option_env!("MXC_SYS_INCLUDE_DIR") {
        Some(d) => PathBuf::from(d),
        None => panic!(
            "the mxc headers were not found at build time: set MXC_INCLUDE_DIR to c_api/include"
        ),
    }
}

fn lib_rs() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap()
}

/// Runs the whole check on Rust source `src`; Err carries the compiler's or the name diff's
/// message.
fn check(src: &str, tag: &str) -> Result<usize, String> {
    let d = parse_rust(src);
    let include = include_dir();
    let (names, fields) = header_decls(&include);
    let missing: Vec<String> = names.difference(&rust_names(&d)).cloned().collect();
    if !missing.is_empty() {
        return Err(format!(
            "declared in the headers but not in mxc-sys: {missing:?}"
        ));
    }
    for (name, rust_fields) in &d.structs {
        let rust: Vec<&String> = rust_fields.iter().map(|f| &f.0).collect();
        let c: Vec<&String> = fields
            .get(name)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        if rust != c {
            return Err(format!(
                "struct {name}: fields {rust:?} in mxc-sys, {c:?} in the headers"
            ));
        }
    }
    let dir = std::env::temp_dir().join(format!("mxc-sys-check-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("check.c");
    std::fs::write(&file, c_check_source(&d)).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args([
            "-std=gnu11",
            "-fsyntax-only",
            "-Wall",
            "-Werror",
            "-Wno-unused-variable",
        ])
        .args([
            "-Werror=incompatible-pointer-types",
            "-Werror=int-conversion",
        ])
        .arg("-I")
        .arg(&include)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(d.fns.len())
}

#[test]
fn declarations_match_headers() {
    let n =
        check(&lib_rs(), "ok").unwrap_or_else(|e| panic!("mxc-sys drifted from the headers:\n{e}"));
    // Every exported function (c_api/abi/symbols.txt lists 86 at ABI 1.0) is declared.
    assert!(n >= 86, "only {n} functions declared");
}

/// The checker finds each kind of drift (so the test above can fail).
#[test]
fn checker_rejects_drift() {
    let src = lib_rs();
    let cases = [
        // A parameter of the wrong width.
        ("pub fn mxc_ndarray_slice(\n        ctx: *mut mxc_ctx,\n        array: *mut mxc_ndarray,\n        begin: i64,",
         "pub fn mxc_ndarray_slice(\n        ctx: *mut mxc_ctx,\n        array: *mut mxc_ndarray,\n        begin: i32,"),
        // A dropped const.
        ("pub fn mxc_symbol_from_json(json: *const c_char", "pub fn mxc_symbol_from_json(json: *mut c_char"),
        // A wrong return type.
        ("pub fn mxc_dtype_size(dtype: i32) -> usize;", "pub fn mxc_dtype_size(dtype: i32) -> u32;"),
        // A struct field of the wrong type (same size) and a missing field.
        ("pub has_seed: i32,", "pub has_seed: u32,"),
        ("pub keep_sparse: i32,\n", ""),
        // A wrong constant and a missing function.
        ("pub const MXC_ATTR_DTYPE: i32 = 8;", "pub const MXC_ATTR_DTYPE: i32 = 9;"),
        ("pub fn mxc_random_seed(seed: u64) -> *mut mxc_status;\n", ""),
    ];
    for (k, (from, to)) in cases.iter().enumerate() {
        assert!(
            src.contains(from),
            "case {k}: pattern not in lib.rs: {from}"
        );
        let bad = src.replacen(from, to, 1);
        assert!(
            check(&bad, &format!("bad{k}")).is_err(),
            "case {k} not detected: {from} -> {to}"
        );
    }
}

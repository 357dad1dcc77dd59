//! Generates `mxnet/src/ops/generated.rs`, the typed operator functions of the `mxnet` crate,
//! from the C ABI's operator metadata (`mxc_op_*`, read through [`mxnet::Op`]).
//!
//! What the metadata gives directly: names, docs, input names and counts, the variadic-count
//! attribute, each attribute's kind, required flag, default and choices. What it does not say
//! (which inputs an attribute switches on or off, whether the output count varies) is found by
//! asking `mxc_op_input_names` / `mxc_op_num_io` with other attribute values: a boolean attribute
//! that drops or adds trailing inputs makes them `Option<&NDArray>`; an operator whose input
//! names change with any other attribute takes `&[&NDArray]`; an operator whose output count
//! changes returns `Vec<NDArray>`. See `mxnet/src/ops/mod.rs` for the resulting API.
use mxnet::{AttrInfo, AttrKind, Op, OpInfo, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Where the checked-in file lives, relative to this crate.
pub const GENERATED_PATH: &str = "../mxnet/src/ops/generated.rs";

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Names the generated items must not shadow (the file's imports and prelude types).
const RESERVED_TYPES: &[&str] = &[
    "NDArray",
    "DType",
    "Device",
    "Result",
    "OpCell",
    "AttrValue",
    "Vec",
    "Option",
    "String",
];

/// `FullyConnected` → `fully_connected`, `L2Normalization` → `l2_normalization`.
pub fn snake(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() {
            let prev = if i > 0 { c[i - 1] } else { '_' };
            let next = c.get(i + 1).copied().unwrap_or('_');
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next.is_ascii_lowercase());
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('_') || out.is_empty() {
            out.push('_');
        }
    }
    out
}

/// `fully_connected` → `FullyConnected`.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for ch in snake.chars() {
        if ch == '_' {
            up = true;
        } else if up {
            out.push(ch.to_ascii_uppercase());
            up = false;
        } else {
            out.push(ch);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'X');
    }
    if RESERVED_TYPES.contains(&out.as_str()) {
        out.push_str("Op");
    }
    out
}

/// A valid Rust identifier for `s` (raw for keywords).
fn ident(s: &str) -> String {
    let mut id: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    if ["self", "super", "crate", "Self", "_"].contains(&id.as_str()) {
        id.push('_');
    } else if KEYWORDS.contains(&id.as_str()) {
        id.insert_str(0, "r#");
    }
    id
}

/// The module and function name of operator `name`; None for operators left out.
pub fn placement(name: &str) -> Option<(&'static str, String)> {
    if name.starts_with("_backward_") {
        return None;
    }
    const PREFIXES: &[(&str, &str, &str)] = &[
        ("_contrib_", "contrib", ""),
        ("_random_", "random", ""),
        ("_sample_", "random", "sample_"),
        ("_linalg_", "linalg", ""),
        ("_image_", "image", ""),
        ("_npi_", "npi", ""),
        ("_npx_", "npx", ""),
        ("_np_", "np", ""),
    ];
    for (prefix, module, keep) in PREFIXES {
        if let Some(rest) = name.strip_prefix(prefix) {
            return Some((module, format!("{keep}{}", snake(rest))));
        }
    }
    if let Some(rest) = name.strip_prefix('_') {
        return Some(("internal", snake(rest.trim_start_matches('_'))));
    }
    Some(("", snake(name)))
}

/// "`a`, `b`, `c`": names as inline code, comma-separated.
fn code_list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Markdown-safe one-paragraph text (no code blocks, no links, no HTML).
fn doc_text(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for ch in flat.chars() {
        match ch {
            '[' => out.push_str("\\["),
            ']' => out.push_str("\\]"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' => out.push('\''),
            '*' => out.push_str("\\*"),
            '_' => out.push('_'),
            '#' => out.push_str("\\#"),
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            c => out.push(c),
        }
    }
    out
}

/// The first paragraph of an operator's doc, cut at `max` chars on a word boundary.
fn summary(doc: &str, max: usize) -> String {
    let para: String = doc
        .trim()
        .split("\n\n")
        .next()
        .unwrap_or("")
        .lines()
        .take_while(|l| !l.trim_start().starts_with(".. ") && !l.trim_start().starts_with(">>>"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut s = doc_text(&para);
    if s.len() > max {
        let cut = s[..max].rfind(' ').unwrap_or(max);
        s.truncate(cut);
        s.push_str(" …");
    }
    s
}

fn rust_type(a: &AttrInfo) -> &'static str {
    match a.kind {
        AttrKind::String if a.name == "ctx" => "Device",
        AttrKind::String => "&str",
        AttrKind::Bool => "bool",
        AttrKind::Int => "i32",
        AttrKind::Long => "i64",
        AttrKind::Float => "f32",
        AttrKind::Double => "f64",
        AttrKind::Shape => "&[i64]",
        AttrKind::FloatTuple => "&[f64]",
        AttrKind::DType => "DType",
    }
}

fn attr_doc(a: &AttrInfo) -> String {
    let mut s = format!("`{}` ({}", a.name, doc_text(a.type_name));
    if let Some(d) = a.default {
        write!(s, ", default `{}`", if d.is_empty() { "\"\"" } else { d }).unwrap();
    }
    if !a.choices.is_empty() {
        write!(s, ", one of {}", code_list(&a.choices)).unwrap();
    }
    s.push(')');
    let d = doc_text(a.doc);
    if !d.is_empty() {
        write!(s, ": {d}").unwrap();
    }
    s
}

/// A value of `a`'s kind that the operator accepts, to probe input names and output counts.
fn placeholder(a: &AttrInfo) -> String {
    if let Some(c) = a.choices.iter().find(|c| **c != "None") {
        return c.to_string();
    }
    match a.kind {
        AttrKind::Bool => "False",
        AttrKind::Int | AttrKind::Long => "1",
        AttrKind::Float | AttrKind::Double => "1.0",
        AttrKind::Shape => "(1, 1)",
        AttrKind::FloatTuple => "(1.0,)",
        AttrKind::DType => "float32",
        AttrKind::String => "",
    }
    .to_string()
}

fn is_true(v: &str) -> bool {
    matches!(v, "True" | "true" | "1")
}

/// Other values worth probing for an attribute (None: values the probe does not vary).
fn alternatives(a: &AttrInfo, base: &str) -> Vec<String> {
    match a.kind {
        AttrKind::Bool => vec![if is_true(base) { "False" } else { "True" }.to_string()],
        AttrKind::String => a
            .choices
            .iter()
            .filter(|c| **c != base && **c != "None")
            .map(|c| c.to_string())
            .collect(),
        AttrKind::Int | AttrKind::Long if a.required => vec!["2".to_string()],
        _ => Vec::new(),
    }
}

/// How an operator's inputs appear in its Rust signature.
enum Inputs {
    /// Named inputs; the trailing `optional` ones are `Option<&NDArray>`, present exactly when
    /// attribute `.0` has value `.1` (which the function sets).
    Named {
        names: Vec<String>,
        optional: usize,
        switch: Option<(String, String, String)>,
    },
    /// `&[&NDArray]`, setting the variadic count attribute when given.
    Slice { count_attr: Option<String> },
}

struct Plan {
    inputs: Inputs,
    multi_output: bool,
}

fn probe(op: Op, info: &OpInfo, attrs: &[AttrInfo]) -> Plan {
    let base: Vec<(&str, String)> = attrs
        .iter()
        .map(|a| {
            (
                a.name,
                if a.required {
                    placeholder(a)
                } else {
                    a.default.unwrap_or("").to_string()
                },
            )
        })
        .filter(|(_, v)| !v.is_empty() && v != "None")
        .collect();
    let with = |name: &str, value: &str| -> Vec<(&str, String)> {
        let mut v: Vec<(&str, String)> = base.iter().filter(|(k, _)| *k != name).cloned().collect();
        v.push((
            attrs.iter().find(|a| a.name == name).unwrap().name,
            value.to_string(),
        ));
        v
    };
    let as_refs = |v: &[(&str, String)]| -> Vec<(String, String)> {
        v.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    };
    let names_for = |v: &[(&str, String)]| -> Option<Vec<String>> {
        let owned = as_refs(v);
        let r: Vec<(&str, &str)> = owned
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        op.input_names(&r).ok()
    };
    let outputs_for = |v: &[(&str, String)]| -> Option<usize> {
        let owned = as_refs(v);
        let r: Vec<(&str, &str)> = owned
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        op.num_io(&r).ok().map(|(_, o)| o)
    };

    // Outputs: one, unless some probed attribute value or the metadata says otherwise.
    let mut multi_output = info.num_outputs != Some(1);
    if !multi_output {
        let base_out = outputs_for(&base);
        for a in attrs {
            let cur = base
                .iter()
                .find(|(k, _)| *k == a.name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            for alt in alternatives(a, &cur) {
                if outputs_for(&with(a.name, &alt)).is_some_and(|o| Some(o) != base_out) {
                    multi_output = true;
                }
            }
        }
    }

    if let Some(v) = info.variadic_attr {
        return Plan {
            inputs: Inputs::Slice {
                count_attr: Some(v.to_string()),
            },
            multi_output,
        };
    }
    let slice = Plan {
        inputs: Inputs::Slice { count_attr: None },
        multi_output,
    };
    let Some(base_names) = names_for(&base) else {
        return slice;
    };
    if info.num_inputs.is_some_and(|n| n != base_names.len()) {
        return slice;
    }
    let mut switch: Option<(String, String, String, usize)> = None; // attr, value when present, value when absent, #optional
    for a in attrs {
        let cur = base
            .iter()
            .find(|(k, _)| *k == a.name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        for alt in alternatives(a, &cur) {
            let Some(names) = names_for(&with(a.name, &alt)) else {
                continue;
            };
            if names == base_names {
                continue;
            }
            let (longer, shorter, on, off) = if names.len() > base_names.len() {
                (&names, &base_names, alt.clone(), cur.clone())
            } else {
                (&base_names, &names, cur.clone(), alt.clone())
            };
            let prefix = longer.starts_with(shorter);
            if a.kind != AttrKind::Bool || !prefix || switch.is_some() {
                return slice; // inputs depend on attributes in a way a signature cannot show
            }
            let on = if on.is_empty() { "False".into() } else { on };
            let off = if off.is_empty() { "False".into() } else { off };
            switch = Some((a.name.to_string(), on, off, longer.len() - shorter.len()));
        }
    }
    match switch {
        None => Plan {
            inputs: Inputs::Named {
                names: base_names,
                optional: 0,
                switch: None,
            },
            multi_output,
        },
        Some((attr, on, off, n)) => {
            let all = names_for(&with(&attr, &on)).unwrap_or_default();
            Plan {
                inputs: Inputs::Named {
                    names: all,
                    optional: n,
                    switch: Some((attr, on, off)),
                },
                multi_output,
            }
        }
    }
}

/// One operator's generated code.
fn gen_op(op: Op, fname: &str, out: &mut String) -> Result<()> {
    let info = op.info()?;
    let attrs = op.attrs()?;
    let plan = probe(op, &info, &attrs);
    let (controlled, count_attr): (Option<&str>, Option<&str>) = match &plan.inputs {
        Inputs::Named { switch, .. } => (switch.as_ref().map(|s| s.0.as_str()), None),
        Inputs::Slice { count_attr } => (None, count_attr.as_deref()),
    };
    let hidden = |a: &&AttrInfo| Some(a.name) == controlled || Some(a.name) == count_attr;
    let required: Vec<&AttrInfo> = attrs
        .iter()
        .filter(|a| a.required)
        .filter(|a| !hidden(a))
        .collect();
    let optional: Vec<&AttrInfo> = attrs
        .iter()
        .filter(|a| !a.required)
        .filter(|a| !hidden(a))
        .collect();

    // Parameter names, unique.
    // The function's locals are `in_` and `at_`; parameters never take those names.
    let mut used: Vec<String> = vec!["in_".into(), "at_".into()];
    let mut unique = |s: &str| {
        let mut id = ident(&s.to_ascii_lowercase());
        while used.contains(&id) {
            id.push('_');
        }
        used.push(id.clone());
        id
    };
    let mut params: Vec<String> = Vec::new();
    let mut required_inputs: Vec<String> = Vec::new();
    let mut optional_inputs: Vec<String> = Vec::new();
    let mut slice_param: Option<String> = None;
    let input_doc: String;
    let mut first_optional: Option<String> = None;
    match &plan.inputs {
        Inputs::Named {
            names,
            optional: nopt,
            switch,
        } => {
            let first_opt = names.len() - nopt;
            for (i, n) in names.iter().enumerate() {
                let id = unique(n);
                if i < first_opt {
                    params.push(format!("{id}: &'a NDArray"));
                    required_inputs.push(id);
                } else {
                    first_optional.get_or_insert_with(|| id.clone());
                    params.push(format!("{id}: Option<&'a NDArray>"));
                    optional_inputs.push(id);
                }
            }
            let list = code_list(names);
            let mut doc = if names.is_empty() {
                "none".to_string()
            } else {
                list
            };
            if let Some((attr, on, off)) = switch {
                let opt = code_list(&names[first_opt..]);
                write!(doc, "; {opt} optional (given: `{attr}` = {on}, else {off})").unwrap();
            }
            input_doc = doc;
        }
        Inputs::Slice { count_attr } => {
            let id = unique("inputs");
            params.push(format!("{id}: &[&'a NDArray]"));
            slice_param = Some(id);
            input_doc = match count_attr {
                Some(c) => format!("any number (sets `{c}`)"),
                None if !info.input_names.is_empty() => format!(
                    "a slice; with the default attributes {}",
                    code_list(&info.input_names)
                ),
                None => "a slice (how many depends on the attributes)".into(),
            };
        }
    }
    let mut req_ids = Vec::new();
    for a in &required {
        let id = unique(a.name);
        params.push(format!("{id}: {}", rust_type(a)));
        req_ids.push((a.name, id));
    }

    // The inputs as an expression: an array for direct calls (no allocation), a Vec for builders.
    let (in_direct, in_builder) = if let Some(p) = &slice_param {
        (p.clone(), format!("{p}.to_vec()"))
    } else if optional_inputs.is_empty() {
        let list = required_inputs.join(", ");
        (format!("[{list}]"), format!("vec![{list}]"))
    } else {
        let e = format!(
            "{{ let mut v = vec![{}]; {} v }}",
            required_inputs.join(", "),
            optional_inputs
                .iter()
                .map(|o| format!("v.extend({o});"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        (e.clone(), e)
    };
    // The fixed attributes: the variadic count, the input switch, the required ones.
    let mut items: Vec<String> = Vec::new();
    if let (Some(c), Some(p)) = (count_attr, &slice_param) {
        items.push(format!("(\"{c}\", {p}.len().to_string())"));
    }
    if let (
        Inputs::Named {
            switch: Some((attr, on, off)),
            ..
        },
        Some(first),
    ) = (&plan.inputs, &first_optional)
    {
        items.push(format!(
            "(\"{attr}\", if {first}.is_some() {{ \"{on}\" }} else {{ \"{off}\" }}.to_string())"
        ));
    }
    for (name, id) in &req_ids {
        items.push(format!("(\"{name}\", {id}.attr_string())"));
    }
    let items = items.join(", ");

    // Docs.
    let mut doc = String::new();
    writeln!(doc, "/// `{}`: {}", info.name, summary(info.doc, 600)).unwrap();
    writeln!(doc, "///").unwrap();
    writeln!(doc, "/// Inputs: {input_doc}.").unwrap();
    for a in &required {
        writeln!(doc, "///").unwrap();
        writeln!(doc, "/// Required {}", attr_doc(a)).unwrap();
    }
    writeln!(doc, "///").unwrap();
    let outs = match (plan.multi_output, info.num_outputs) {
        (false, _) => "one array".to_string(),
        (true, Some(n)) => format!("a `Vec` ({n} with the default attributes)"),
        (true, None) => "a `Vec` (how many depends on the attributes)".to_string(),
    };
    write!(doc, "/// Outputs: {outs}.").unwrap();
    if !info.aliases.is_empty() {
        write!(doc, " Aliases: {}.", code_list(&info.aliases)).unwrap();
    }
    writeln!(doc).unwrap();

    let ret = if plan.multi_output {
        "Result<Vec<NDArray>>"
    } else {
        "Result<NDArray>"
    };
    let caller = if plan.multi_output { "call" } else { "call1" };
    let cell = format!("static OP: OpCell = OpCell::new(\"{}\");", info.name);
    let fn_ident = ident(fname);
    let lifetimes = "<'a>";
    if optional.is_empty() {
        out.push_str(&doc);
        if fn_ident != fn_ident.to_ascii_lowercase() {
            writeln!(out, "#[allow(non_snake_case)]").unwrap();
        }
        // Direct calls borrow only for the call: elided lifetimes.
        let params: Vec<String> = params.iter().map(|p| p.replace("&'a ", "&")).collect();
        writeln!(out, "pub fn {fn_ident}({}) -> {ret} {{", params.join(", ")).unwrap();
        writeln!(out, "    {cell}").unwrap();
        let in_ref = if slice_param.is_some() { "in_" } else { "&in_" };
        writeln!(out, "    let in_ = {in_direct};").unwrap();
        if items.is_empty() {
            writeln!(out, "    let at_: [(&str, String); 0] = [];").unwrap();
        } else {
            writeln!(out, "    let at_ = [{items}];").unwrap();
        }
        writeln!(out, "    {caller}(&OP, {in_ref}, &at_)").unwrap();
        writeln!(out, "}}\n").unwrap();
        return Ok(());
    }
    // A registry spelling kept to avoid a clash (MakeLoss beside make_loss) gets `...Op`.
    let ty = if fname.chars().any(|c| c.is_ascii_uppercase()) {
        format!("{fname}Op")
    } else {
        camel(fname)
    };
    out.push_str(&doc);
    writeln!(
        out,
        "///\n/// Returns a builder: set optional attributes, then `.call()`."
    )
    .unwrap();
    if fn_ident != fn_ident.to_ascii_lowercase() {
        writeln!(out, "#[allow(non_snake_case)]").unwrap();
    }
    writeln!(
        out,
        "pub fn {fn_ident}{lifetimes}({}) -> {ty}<'a> {{",
        params.join(", ")
    )
    .unwrap();
    writeln!(
        out,
        "    {ty} {{ inputs: {in_builder}, attrs: vec![{items}] }}"
    )
    .unwrap();
    writeln!(out, "}}\n").unwrap();
    writeln!(
        out,
        "/// Builder of [`{fn_ident}`](fn@{fn_ident}): optional attributes of `{}`, then [`call`]({ty}::call).",
        info.name
    )
    .unwrap();
    writeln!(out, "#[must_use = \"nothing runs until .call()\"]").unwrap();
    writeln!(out, "pub struct {ty}<'a> {{\n    inputs: Vec<&'a NDArray>,\n    attrs: Vec<(&'static str, String)>,\n}}\n").unwrap();
    writeln!(out, "impl<'a> {ty}<'a> {{").unwrap();
    let mut mused: Vec<String> = vec!["call".into()];
    for a in &optional {
        let mut m = ident(&a.name.to_ascii_lowercase());
        while mused.contains(&m) {
            m.push('_');
        }
        mused.push(m.clone());
        writeln!(out, "    /// {}", attr_doc(a)).unwrap();
        writeln!(
            out,
            "    pub fn {m}(mut self, value: {}) -> Self {{",
            rust_type(a)
        )
        .unwrap();
        writeln!(
            out,
            "        set_attr(&mut self.attrs, \"{}\", value.attr_string());",
            a.name
        )
        .unwrap();
        writeln!(out, "        self\n    }}\n").unwrap();
    }
    writeln!(
        out,
        "    /// Runs `{}` under the thread's current context.",
        info.name
    )
    .unwrap();
    writeln!(out, "    pub fn call(self) -> {ret} {{").unwrap();
    writeln!(out, "        {cell}").unwrap();
    writeln!(out, "        {caller}(&OP, &self.inputs, &self.attrs)").unwrap();
    writeln!(out, "    }}\n}}\n").unwrap();
    Ok(())
}

/// The whole generated file.
pub fn generate() -> Result<String> {
    let (major, minor) = mxnet::abi_version();
    let mut modules: BTreeMap<&'static str, Vec<(String, Op)>> = BTreeMap::new();
    for op in Op::list()? {
        if let Some((module, fname)) = placement(op.name()) {
            modules.entry(module).or_default().push((fname, op));
        }
    }
    let mut out = String::new();
    writeln!(
        out,
        "// @generated by mxnet-opgen from libmxc.so {major}.{minor}'s operator metadata: do not edit.\n\
         // Regenerate with `cargo run -p mxnet-opgen`; opgen's test fails when this file is stale.\n"
    )
    .unwrap();
    for (module, ops) in &modules {
        let mut body = String::new();
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (fname, _) in ops {
            *count.entry(fname).or_default() += 1;
        }
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        for (fname, op) in ops {
            // Two operators with one snake-case name: the one not spelled in snake case keeps its
            // registry spelling.
            let name = op.name();
            let fname = if count[fname.as_str()] > 1 && name != fname {
                name.to_string()
            } else {
                fname.clone()
            };
            if let Some(prev) = seen.insert(fname.clone(), name) {
                panic!("operators {prev} and {name} both map to {module}::{fname}");
            }
            gen_op(*op, &fname, &mut body)?;
        }
        if module.is_empty() {
            out.push_str(&body);
        } else {
            let what = match *module {
                "internal" => "other operators whose names start with `_`".to_string(),
                "random" => "operators registered as `_random_*` and `_sample_*`".to_string(),
                m => format!("operators registered as `_{m}_*`"),
            };
            writeln!(
                out,
                "/// Typed functions of the {what} (see [`ops`](crate::ops))."
            )
            .unwrap();
            writeln!(
                out,
                "pub mod {module} {{\n    #[allow(unused_imports)]\n    use super::*;\n"
            )
            .unwrap();
            for line in body.lines() {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    writeln!(out, "    {line}").unwrap();
                }
            }
            writeln!(out, "}}\n").unwrap();
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

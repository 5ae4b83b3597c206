//! The generator's stages go one way: no module of `codegen/src` reaches,
//! through the paths it names, a module that reaches it back.
//!
//! Every `codegen/src/**/*.rs` is parsed (syn); each path it names that
//! leads to another module of the crate is an edge: `crate::a::b…`,
//! `super::…` (from a file's top level: its parent module; from an inline
//! `mod tests` inside it: the file's own module, which is no edge), and a
//! relative path whose first segment is a child module (`check::…` in
//! `lib.rs`). A path leads to the longest module prefix it names, so
//! `crate::emit::docs::rustdoc` is an edge to `emit::docs` and
//! `crate::Options` one to the crate root. Paths in macro calls count
//! (`format_ident!("{}", crate::ident::rust_field(…))`), except in
//! `quote!`, whose tokens are the generated crate's code. Comments and doc
//! links do not count. The test fails on every strongly connected group of
//! modules, listing one cycle in it with the file and path of each step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path from the crate root, `""` for the root itself.
type Module = String;

/// Where an edge is named: the file and the path as written there.
type Site = (String, String);

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source file and the module it is.
fn modules(dir: &Path, prefix: &[String], out: &mut Vec<(PathBuf, Module)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            let mut p = prefix.to_vec();
            p.push(name);
            modules(&path, &p, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut p = prefix.to_vec();
            if !(name == "mod" || (prefix.is_empty() && name == "lib")) {
                p.push(name);
            }
            out.push((path, p.join("::")));
        }
    }
}

struct Collector<'a> {
    /// The module of the file, as segments.
    file_module: Vec<String>,
    /// How deep inside inline `mod … { }` blocks of the file the visitor is.
    inline_depth: usize,
    known: &'a BTreeSet<Module>,
    file: String,
    edges: Vec<(Module, Site)>,
}

impl Collector<'_> {
    /// The module a path of `segments` leads to, if any.
    fn resolve(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let (base, rest): (Vec<String>, &[String]) = match first.as_str() {
            "crate" => (vec![], &segments[1..]),
            "super" => {
                if self.inline_depth > 0 {
                    // `use super::*` in `mod tests`: the file's own module.
                    return;
                }
                let mut b = self.file_module.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    b.pop();
                    rest = &rest[1..];
                }
                (b, rest)
            }
            "self" => return,
            _ => {
                // A relative path: an edge only when it names a child module.
                let mut child = self.file_module.clone();
                child.push(first.clone());
                if self.inline_depth == 0 && self.known.contains(&child.join("::")) {
                    (self.file_module.clone(), segments)
                } else {
                    return;
                }
            }
        };
        let mut target = base.clone();
        let mut best = base.join("::");
        for s in rest {
            target.push(s.clone());
            let t = target.join("::");
            if self.known.contains(&t) {
                best = t;
            } else {
                break;
            }
        }
        if best != self.file_module.join("::") && self.known.contains(&best) {
            self.edges
                .push((best, (self.file.clone(), segments.join("::"))));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => {
                prefix.push("*".to_owned());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `crate :: a :: b` and `super :: …` runs in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id) if id == "crate" || id == "super" => {
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while j + 2 < trees.len() + 1 {
                        let colons = matches!((&trees.get(j), &trees.get(j + 1)),
                            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                        match (colons, trees.get(j + 2)) {
                            (true, Some(TokenTree::Ident(next))) => {
                                segments.push(next.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    self.resolve(&segments);
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.inline_depth += 1;
            syn::visit::visit_item_mod(self, m);
            self.inline_depth -= 1;
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    /// `pub(crate)`, `pub(super)`: a visibility names no module it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if name != "quote" && name != "quote_spanned" {
            self.tokens(m.tokens.clone());
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Every module and, for each, the modules it names with where.
fn graph() -> BTreeMap<Module, BTreeMap<Module, Site>> {
    let mut files = Vec::new();
    modules(&src_dir(), &[], &mut files);
    let known: BTreeSet<Module> = files.iter().map(|(_, m)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (path, module) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut c = Collector {
            file_module: if module.is_empty() {
                vec![]
            } else {
                module.split("::").map(str::to_owned).collect()
            },
            inline_depth: 0,
            known: &known,
            file: path
                .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
                .unwrap()
                .display()
                .to_string(),
            edges: Vec::new(),
        };
        c.visit_file(&ast);
        let out: &mut BTreeMap<Module, Site> = graph.entry(module.clone()).or_default();
        for (to, site) in c.edges {
            out.entry(to).or_insert(site);
        }
    }
    graph
}

fn name(m: &str) -> &str {
    if m.is_empty() {
        "crate"
    } else {
        m
    }
}

/// The strongly connected groups of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<Module, BTreeMap<Module, Site>>) -> Vec<Vec<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeMap<Module, Site>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<Module>>,
    }
    fn connect<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                connect(s, w);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v, l);
            } else if s.on_stack.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                group.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// One cycle through `group`'s first module, shortest first (breadth-first),
/// written with where each step is named.
fn one_cycle(graph: &BTreeMap<Module, BTreeMap<Module, Site>>, group: &[Module]) -> String {
    let inside: BTreeSet<&str> = group.iter().map(String::as_str).collect();
    let start = group[0].as_str();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut last = None;
    'search: while let Some(v) = queue.pop_front() {
        for w in graph[v].keys() {
            let w = w.as_str();
            if w == start {
                last = Some(v);
                break 'search;
            }
            if inside.contains(w) && !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    let mut chain = Vec::new();
    let mut v = last.expect("a strongly connected group has a cycle");
    while v != start {
        chain.push(v);
        v = prev[v];
    }
    chain.reverse();
    let path: Vec<&str> = std::iter::once(start)
        .chain(chain)
        .chain(std::iter::once(start))
        .collect();
    let steps: Vec<String> = path
        .windows(2)
        .map(|w| {
            let (file, path) = &graph[w[0]][w[1]];
            format!("    {} -> {}  ({file}: `{path}`)", name(w[0]), name(w[1]))
        })
        .collect();
    format!(
        "  {{{}}}:\n{}",
        group.iter().map(|m| name(m)).collect::<Vec<_>>().join(", "),
        steps.join("\n")
    )
}

#[test]
fn the_graph_sees_the_modules_and_their_imports() {
    let g = graph();
    for m in ["", "check", "lower", "emit", "emit::rust", "load", "model"] {
        assert!(g.contains_key(m), "module `{}` is read", name(m));
    }
    // `check.rs` names the diagnostics, as every checking stage does.
    assert!(g["check"].contains_key("diagnostic"), "{:?}", g["check"]);
    // A `use super::*` in a file's `mod tests` is no edge.
    assert!(!g["template"].contains_key(""), "{:?}", g["template"]);
}

#[test]
fn codegen_has_no_module_cycles() {
    let g = graph();
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "{} group(s) of codegen/src modules reach each other:\n{}",
        found.len(),
        found
            .iter()
            .map(|c| one_cycle(&g, c))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

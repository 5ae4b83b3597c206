//! The generated crate's and Python package's manifests follow the spec's
//! `version`, and the crate's names its dependencies without the workspace.

use agent_sentences_codegen::{
    generate, generate_with, Options, Provenance, Runtime, RUNTIME_VERSION,
};

mod common;

/// The value of `key = "…"` on the first line that starts with `key = `.
fn toml_value<'a>(text: &'a str, key: &str) -> &'a str {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no `{key}` in\n{text}"));
    line.split_once(" = ").unwrap().1.trim_matches('"')
}

#[test]
fn versions_follow_the_spec() {
    let spec = common::edited_spec("structures.json", |t| {
        common::replace_once(t, "\"version\": \"1.0.0\"", "\"version\": \"2.3.4\"")
    });
    let g = generate(spec.path()).unwrap();
    assert_eq!(toml_value(&g.files["rust/Cargo.toml"], "version"), "2.3.4");
    assert_eq!(
        toml_value(&g.files["python/pyproject.toml"], "version"),
        "2.3.4"
    );
    assert!(g.files["rust/src/lib.rs"].contains("pub const SPEC_VERSION: &str = \"2.3.4\";"));
}

#[test]
fn the_crate_manifest_is_self_contained() {
    let root = common::root();
    let g = generate(&root.join("schema")).unwrap();
    let manifest = &g.files["rust/Cargo.toml"];
    assert!(!manifest.contains("workspace"), "{manifest}");
    assert_eq!(toml_value(manifest, "edition"), "2021");
    assert_eq!(toml_value(manifest, "rust-version"), "1.85");
    assert_eq!(toml_value(manifest, "license"), "MIT");
    let runtime = format!("agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\", path = \"../../runtime\" }}\n");
    assert!(manifest.contains(&runtime), "{manifest}");
    // The version is the runtime crate's own.
    let runtime_manifest = std::fs::read_to_string(root.join("runtime/Cargo.toml")).unwrap();
    assert_eq!(toml_value(&runtime_manifest, "version"), RUNTIME_VERSION);

    let registry = generate_with(
        &root.join("schema"),
        &Options {
            runtime: Runtime::Version(RUNTIME_VERSION.to_owned()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(registry.files["rust/Cargo.toml"].contains(&format!(
        "agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\" }}\n"
    )));
    // The Python binding's manifest names the runtime one folder deeper, or by version alone.
    assert!(g.files["python/native/Cargo.toml"].contains(&format!(
        "agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\", path = \"../../../runtime\", features = [\"python\"] }}\n"
    )));
    assert!(
        registry.files["python/native/Cargo.toml"].contains(&format!(
        "agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\", features = [\"python\"] }}\n"
    ))
    );
    // Only the manifests depend on the option.
    let differ: Vec<&String> = g
        .files
        .keys()
        .filter(|k| g.files[*k] != registry.files[*k])
        .collect();
    assert_eq!(differ, ["python/native/Cargo.toml", "rust/Cargo.toml"]);
}

#[test]
fn rust_module_has_no_cfg_and_reaches_dependencies_through_the_runtime() {
    let spec = common::root().join("schema");
    let module = agent_sentences_codegen::rust_module(&spec).unwrap();
    assert!(
        !module.contains("cfg"),
        "no cfg: a user's crate without the feature would warn"
    );
    for direct in ["use regex::", "use serde::", " serde_json::", "schemars"] {
        assert!(
            !module.contains(direct),
            "`{direct}` is not reached through the runtime"
        );
    }
    assert!(
        !module.contains("```"),
        "no doc examples: they would name the crate agent_sentences"
    );
    let with = agent_sentences_codegen::rust_module_with(&spec, Some("json-schema")).unwrap();
    let n = with
        .matches("#[cfg_attr(feature = \"json-schema\", derive(schemars::JsonSchema))]")
        .count();
    assert!(n > 10, "{n}");
    let lines = |t: &str, skip: bool| {
        t.lines()
            .filter(|l| !(skip && l.contains("feature = \"json-schema\"")))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&with, true),
        lines(&module, false),
        "the derives are the only difference"
    );
}

/// The metadata types are the runtime's (P225): the generated code fills
/// them in and re-exports them, and defines none of them.
#[test]
fn metadata_types_are_the_runtimes_reexported() {
    let spec = common::root().join("schema");
    let module = agent_sentences_codegen::rust_module(&spec).unwrap();
    assert!(module.contains("pub use agent_sentences_runtime::meta::{FieldInfo, ValueType};"));
    assert!(module.contains("pub use agent_sentences_runtime::meta::{"));
    for ty in [
        "ValueType",
        "FieldInfo",
        "GroupInfo",
        "Capture",
        "MatchExample",
        "PatternInfo",
    ] {
        for def in [format!("pub enum {ty} "), format!("pub struct {ty} ")] {
            assert!(!module.contains(&def), "the generated code defines `{ty}`");
        }
        assert!(
            !module.contains(&format!("impl {ty} ")),
            "the generated code implements `{ty}`"
        );
    }
}

/// A vendored runtime (the standalone generator's default, P210): the
/// runtime's own files under `runtime/`, each behind a header naming the
/// command, the manifests naming it by path beside its version, and every
/// generated file's header naming the command instead of `cargo xtask gen`.
#[test]
fn the_vendored_runtime_is_the_runtime_crate_beside_the_generated_one() {
    let root = common::root();
    let command = "agent-sentences-gen gen --spec spec --out out";
    let options = Options {
        runtime: Runtime::Vendored,
        provenance: Provenance::new(command, "spec"),
    };
    let g = generate_with(&root.join("schema"), &options).unwrap();
    let vendored: Vec<&String> = g
        .files
        .keys()
        .filter(|k| k.starts_with("runtime/"))
        .collect();
    // Every file of the runtime crate a build reads: its manifest, README,
    // build script (which lists the rest, P260) and sources.
    let mut expected = vec![
        "runtime/Cargo.toml".to_owned(),
        "runtime/README.md".to_owned(),
        "runtime/build.rs".to_owned(),
    ];
    // Every `.rs` file under `runtime/src`, its folders (`context/`, `scan/`, …) included.
    let mut dirs = vec![root.join("runtime/src")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(root.join("runtime")).unwrap();
                let rel = rel.to_string_lossy().replace('\\', "/");
                expected.push(format!("runtime/{rel}"));
            }
        }
    }
    expected.sort();
    assert_eq!(vendored, expected.iter().collect::<Vec<_>>());
    for path in &expected {
        let on_disk = std::fs::read_to_string(root.join(path)).unwrap();
        let text = &g.files[path];
        let (header, rest) = text.split_once('\n').unwrap();
        assert_eq!(rest, on_disk, "{path}");
        assert!(
            header.contains(&format!(
                "@generated by `{command}`: a copy of agent-sentences-runtime {RUNTIME_VERSION}"
            )),
            "{header}"
        );
    }
    // The manifest builds on its own: nothing inherited from a workspace.
    assert!(!g.files["runtime/Cargo.toml"].contains("workspace = true"));
    assert!(g.files["rust/Cargo.toml"].contains(&format!(
        "agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\", path = \"../runtime\" }}\n"
    )));
    assert!(g.files["python/native/Cargo.toml"].contains(&format!(
        "agent-sentences-runtime = {{ version = \"{RUNTIME_VERSION}\", path = \"../../runtime\", features = [\"python\"] }}\n"
    )));
    // Every generated file names the command; none names the repository's.
    for (path, text) in g.files.iter().filter(|(k, _)| !k.starts_with("runtime/")) {
        assert!(
            text.contains(&format!("@generated by `{command}` from spec/. Do not edit by hand: change the spec and run `{command}`.")),
            "{path}"
        );
        assert!(
            !text.contains("by `cargo xtask gen`") && !text.contains("by ``cargo xtask gen``"),
            "{path}"
        );
    }
}

/// `--runtime-version`: the version requirement the user names, no path, no copy.
#[test]
fn a_runtime_version_names_the_registry_crate_only() {
    let root = common::root();
    let options = Options {
        runtime: Runtime::Version("0.1".to_owned()),
        ..Options::default()
    };
    let g = generate_with(&root.join("schema"), &options).unwrap();
    assert!(
        g.files["rust/Cargo.toml"].contains("agent-sentences-runtime = { version = \"0.1\" }\n")
    );
    assert!(!g.files.keys().any(|k| k.starts_with("runtime/")));
}

/// Every publishable manifest (the runtime, the generated crate, the
/// generator library and the standalone generator) names its repository,
/// a README that exists beside it, keywords and categories, as a registry
/// page shows them; the repository holds the licence the manifests declare.
#[test]
fn every_publishable_manifest_has_its_registry_metadata() {
    let root = common::root();
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let g = generate(&root.join("schema")).unwrap();
    let manifests = [
        (
            "runtime",
            std::fs::read_to_string(root.join("runtime/Cargo.toml")).unwrap(),
        ),
        (
            "codegen",
            std::fs::read_to_string(root.join("codegen/Cargo.toml")).unwrap(),
        ),
        (
            "generator",
            std::fs::read_to_string(root.join("generator/Cargo.toml")).unwrap(),
        ),
        ("generated/rust", g.files["rust/Cargo.toml"].clone()),
    ];
    let repository = toml_value(&workspace, "repository");
    assert!(repository.starts_with("https://"), "{repository}");
    for (dir, manifest) in &manifests {
        assert!(!manifest.contains("\npublish = false"), "{dir}");
        let repo = if manifest.contains("\nrepository.workspace = true\n") {
            repository
        } else {
            toml_value(manifest, "repository")
        };
        assert_eq!(repo, repository, "{dir}");
        let readme = toml_value(manifest, "readme");
        let exists = if *dir == "generated/rust" {
            g.files.contains_key(&format!("rust/{readme}"))
        } else {
            root.join(dir).join(readme).is_file()
        };
        assert!(exists, "{dir}: no {readme}");
        for key in ["keywords", "categories"] {
            assert!(
                manifest
                    .lines()
                    .any(|l| l.starts_with(&format!("{key} = [\""))),
                "{dir}: no {key}"
            );
        }
    }
    let license = std::fs::read_to_string(root.join("LICENSE")).unwrap();
    assert!(license.starts_with("MIT License\n"), "{license}");
    assert_eq!(toml_value(&workspace, "license"), "MIT");
}

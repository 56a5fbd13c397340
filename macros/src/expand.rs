//! The expansion of `ctm_kernel!`: check the source for each machine
//! target, compile each entry point for each target
//! ([`ctm_driver::pipeline::compile_entry`], `-O2`, as `ctmc` does), and
//! generate the modules — or `compile_error!`s at the offending tokens.
//!
//! Policy (`docs/host-api.md`): an error of the language itself (one the
//! target-neutral `ref` rules report) is a compile error. A rule or limit
//! of one target only (x1k's integer operators, too many outputs, a
//! hardware limit found by the code generator) makes the entry point
//! unavailable on that target, with the reason embedded, unless
//! `#![targets(..)]` names that target, in which case it is a compile
//! error too. A target whose code generator is not built yet
//! (`CodegenFailure::Unavailable`) is always just unavailable.

use crate::source::{Source, reconstruct};
use ctm_driver::pipeline::compile_entry;
use ctm_driver::target::{CodegenFailure, MachineTarget};
use ctm_driver::{Checked, Compilation, CompileError, CompileOptions, OptLevel, Target};
use ctm_frontend::diag::Diagnostic;
use ctm_frontend::tast::{KernelParam, ParamKind, Program};
use ctm_frontend::types::{ScalarOrVector, StreamType, Type};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// An error at a pair of spans (first and last token).
struct Located {
    message: String,
    spans: (proc_macro::Span, proc_macro::Span),
}

/// `compile_error!` covering the tokens from `spans.0` to `spans.1` (the
/// path carries the first span and the braces the last, so rustc shows
/// the whole range, as `syn::Error` does).
fn compile_error(e: &Located) -> TokenStream {
    let (first, last) = (Span::from(e.spans.0), Span::from(e.spans.1));
    let message = Literal::string(&e.message);
    let path = quote_spanned!(first=> ::core::compile_error!);
    let mut body = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, quote!(#message));
    body.set_span(last);
    quote!(#path #body)
}

/// The message of a diagnostic: code, headline, label, secondary labels,
/// help and note, one per line.
fn describe(d: &Diagnostic, source: &Source) -> String {
    let mut text = format!("{}: {}", d.code, d.message);
    if !d.label.is_empty() {
        text.push_str(&format!("\n  label: {}", d.label));
    }
    for (span, label) in &d.secondary {
        let at = source.snippet(span.range());
        if at.is_empty() || at.len() > 40 || at.contains('\n') {
            text.push_str(&format!("\n  note: {label}"));
        } else {
            text.push_str(&format!("\n  note: {label} (at `{at}`)"));
        }
    }
    if let Some(help) = &d.help {
        text.push_str(&format!("\n  help: {help}"));
    }
    if let Some(note) = &d.note {
        text.push_str(&format!("\n  note: {note}"));
    }
    text
}

fn locate(d: &Diagnostic, source: &Source, suffix: &str) -> Located {
    Located {
        message: format!("{}{suffix}", describe(d, source)),
        spans: source.spans(d.span.range()),
    }
}

/// One line for an unavailable entry point: `x1k: CK0060: ... (at `a % b`)`.
fn reason(d: &Diagnostic, source: &Source) -> String {
    let at = source.snippet(d.span.range());
    if at.is_empty() || at.len() > 60 || at.contains('\n') {
        format!("{}: {}", d.code, d.message)
    } else {
        format!("{}: {} (at `{at}`)", d.code, d.message)
    }
}

fn errors_of(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    diags.iter().filter(|d| d.is_error()).collect()
}

pub fn expand(input: proc_macro::TokenStream) -> TokenStream {
    let source = reconstruct(input);
    match build(&source) {
        Ok(tokens) => tokens,
        Err(errors) => errors.iter().map(compile_error).collect(),
    }
}

/// The machine targets to compile for, and whether they were named.
fn targets(source: &Source) -> Result<(Vec<&'static dyn MachineTarget>, bool), Vec<Located>> {
    let all = ctm_driver::target::machines();
    let Some((names, span)) = &source.targets else {
        return Ok((all.to_vec(), false));
    };
    let mut chosen = Vec::new();
    for name in names {
        match all.iter().find(|t| t.target().name() == name) {
            Some(t) => chosen.push(*t),
            None => {
                let valid: Vec<&str> = all.iter().map(|t| t.target().name()).collect();
                return Err(vec![Located {
                    message: format!(
                        "ctm_kernel!: unknown target `{name}` in #![targets(..)] (valid: {})",
                        valid.join(", ")
                    ),
                    spans: (*span, *span),
                }]);
            }
        }
    }
    if chosen.is_empty() {
        return Err(vec![Located {
            message: "ctm_kernel!: #![targets(..)] names no target".into(),
            spans: (*span, *span),
        }]);
    }
    Ok((chosen, true))
}

/// What one target made of one entry point.
enum Built {
    Elf(Vec<u8>),
    Unavailable(String),
}

fn build(source: &Source) -> Result<TokenStream, Vec<Located>> {
    let text = source.text.as_str();
    let (machines, named) = targets(source)?;
    // The language's own errors: the target-neutral rules.
    let neutral = match ctm_driver::check_source(text, Target::Ref) {
        Ok(c) => c,
        Err(CompileError::Source(diags)) => {
            return Err(errors_of(&diags)
                .into_iter()
                .map(|d| locate(d, source, ""))
                .collect());
        }
        Err(e) => {
            return Err(vec![Located {
                message: format!("ctm_kernel!: {e}"),
                spans: source.spans(0..text.len()),
            }]);
        }
    };
    let program = &neutral.program;
    if program.kernels.is_empty() && program.reductions.is_empty() {
        return Err(vec![Located {
            message: "CK0017: ctm_kernel! holds no kernel and no reduction".into(),
            spans: source.spans(0..text.len()),
        }]);
    }
    // Each target's rules.
    let mut checked: Vec<(&'static dyn MachineTarget, Result<Checked, String>)> = Vec::new();
    let mut errors = Vec::new();
    for t in &machines {
        let name = t.target().name();
        match ctm_driver::check_source(text, t.target()) {
            Ok(c) => checked.push((*t, Ok(c))),
            Err(CompileError::Source(diags)) => {
                let errs = errors_of(&diags);
                if named {
                    errors.extend(
                        errs.iter()
                            .map(|d| locate(d, source, &format!("\n  note: on target {name}"))),
                    );
                }
                let why: Vec<String> = errs.iter().map(|d| reason(d, source)).collect();
                checked.push((*t, Err(why.join("; "))));
            }
            Err(e) => checked.push((*t, Err(e.to_string()))),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let warnings: Vec<String> = neutral
        .warnings
        .iter()
        .map(|d| {
            let at = source.snippet(d.span.range());
            format!("{}: {} (at `{at}`)", d.code, d.message)
        })
        .collect();
    let mut modules = TokenStream::new();
    let names: Vec<&str> = program
        .kernels
        .iter()
        .map(|k| k.name.as_str())
        .chain(program.reductions.iter().map(|r| r.name.as_str()))
        .collect();
    for entry in names {
        let mut builds = Vec::new();
        for (t, check) in &checked {
            let built = match check {
                Err(why) => Built::Unavailable(why.clone()),
                Ok(c) => compile_for(source, c, *t, entry, named, &mut errors),
            };
            builds.push((*t, built));
        }
        modules.extend(module(program, entry, &builds, &warnings));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(modules)
}

/// Compiles `entry` for `target` as `ctmc --target T --kernel ENTRY -O2`.
fn compile_for(
    source: &Source,
    checked: &Checked,
    target: &dyn MachineTarget,
    entry: &str,
    named: bool,
    errors: &mut Vec<Located>,
) -> Built {
    let options = CompileOptions {
        target: target.target(),
        kernel: Some(entry.to_string()),
        opt_level: OptLevel::O2,
    };
    let compilation = match Compilation::new(checked.clone(), options) {
        Ok(c) => c,
        Err(d) => return Built::Unavailable(reason(&d, source)),
    };
    let compiled = compile_entry(Some(&source.text), &compilation, target, None)
        .and_then(|p| p.elf().map_err(CodegenFailure::Internal));
    match compiled {
        Ok(elf) => Built::Elf(elf),
        Err(CodegenFailure::Limit(d)) => {
            if named {
                errors.push(locate(
                    &d,
                    source,
                    &format!("\n  note: on target {}", target.target()),
                ));
            }
            Built::Unavailable(reason(&d, source))
        }
        Err(CodegenFailure::Unavailable(why)) => Built::Unavailable(why),
        Err(CodegenFailure::Internal(e)) => {
            errors.push(Located {
                message: format!(
                    "ctm_kernel!: internal error compiling `{entry}` for {} (a bug in ctm): {e}",
                    target.target()
                ),
                spans: source.spans(0..source.text.len()),
            });
            Built::Unavailable(e.to_string())
        }
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A Rust identifier for a language name (raw for Rust keywords; `self`,
/// `Self`, `super`, `crate` get a trailing `_`).
fn ident(name: &str) -> Ident {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => format_ident!("{}_", name),
        n if KEYWORDS.contains(&n) => Ident::new_raw(n, Span::call_site()),
        n => Ident::new(n, Span::call_site()),
    }
}

fn stream_elem(ty: StreamType) -> TokenStream {
    match ty {
        StreamType::F32 => quote!(f32),
        StreamType::Vec2 => quote!([f32; 2]),
        StreamType::Vec4 => quote!([f32; 4]),
        StreamType::Unorm8x4 => quote!(::ctm::Unorm8x4),
        StreamType::U16 => quote!(u16),
    }
}

fn value_elem(ty: Type) -> TokenStream {
    match ty {
        Type::Vec2 => quote!([f32; 2]),
        Type::Vec4 => quote!([f32; 4]),
        _ => quote!(f32),
    }
}

/// The Rust type of a uniform and the function turning it into a value.
fn uniform(ty: Type) -> (TokenStream, TokenStream) {
    let p = quote!(::ctm::host::__private);
    match ty {
        Type::Bool => (quote!(bool), quote!(#p::bool_value)),
        Type::I32 => (quote!(i32), quote!(#p::i32_value)),
        Type::Vec2 => (quote!([f32; 2]), quote!(#p::vec_value)),
        Type::Vec3 => (quote!([f32; 3]), quote!(#p::vec_value)),
        Type::Vec4 => (quote!([f32; 4]), quote!(#p::vec_value)),
        Type::Mat4 => (quote!([f32; 16]), quote!(#p::mat4_value)),
        Type::Array(a) => {
            let n = Literal::usize_unsuffixed(a.len as usize);
            match a.elem {
                ScalarOrVector::F32 => (quote!([f32; #n]), quote!(#p::f32_array)),
                ScalarOrVector::I32 => (quote!([i32; #n]), quote!(#p::i32_array)),
                ScalarOrVector::Vec2 => (quote!([[f32; 2]; #n]), quote!(#p::vec_array)),
                ScalarOrVector::Vec4 => (quote!([[f32; 4]; #n]), quote!(#p::vec_array)),
            }
        }
        _ => (quote!(f32), quote!(#p::f32_value)),
    }
}

fn param_info(p: &KernelParam) -> TokenStream {
    let name = &p.name;
    let (role, ty) = match p.kind {
        ParamKind::Uniform(t) => (quote!(Uniform), t.to_string()),
        ParamKind::Input(t) => (quote!(Input), t.name().to_string()),
        ParamKind::Output(t) => (quote!(Output), t.value_type().to_string()),
        ParamKind::Scatter => (quote!(Scatter), "f32".to_string()),
    };
    quote!(::ctm::ParamInfo { name: #name, role: ::ctm::Role::#role, ty: #ty })
}

fn module(
    program: &Program,
    entry: &str,
    builds: &[(&'static dyn MachineTarget, Built)],
    warnings: &[String],
) -> TokenStream {
    let name = ident(entry);
    let mut consts = TokenStream::new();
    let mut build_list = Vec::new();
    for (t, built) in builds {
        let tname = t.target().name();
        let upper = tname.to_uppercase();
        let elf_const = format_ident!("ELF_{}", upper);
        let why_const = format_ident!("UNAVAILABLE_{}", upper);
        let doc_elf = format!(
            "The {tname} ELF file of `{entry}` (byte-identical to `ctmc --target {tname} --kernel {entry}`'s), if {tname} can run it."
        );
        let doc_why = format!("Why {tname} cannot run `{entry}` (`None`: it can).");
        match built {
            Built::Elf(bytes) => {
                let lit = Literal::byte_string(bytes);
                consts.extend(quote! {
                    #[doc = #doc_elf]
                    pub const #elf_const: ::core::option::Option<&'static [u8]> = ::core::option::Option::Some(#lit);
                    #[doc = #doc_why]
                    pub const #why_const: ::core::option::Option<&'static str> = ::core::option::Option::None;
                });
                build_list.push(
                    quote!(::ctm::Build { target: #tname, elf: ::core::result::Result::Ok(#lit) }),
                );
            }
            Built::Unavailable(why) => {
                consts.extend(quote! {
                    #[doc = #doc_elf]
                    pub const #elf_const: ::core::option::Option<&'static [u8]> = ::core::option::Option::None;
                    #[doc = #doc_why]
                    pub const #why_const: ::core::option::Option<&'static str> = ::core::option::Option::Some(#why);
                });
                build_list.push(
                    quote!(::ctm::Build { target: #tname, elf: ::core::result::Result::Err(#why) }),
                );
            }
        }
    }
    let p = quote!(::ctm::host::__private);
    let (params, api, doc) = if let Some(k) = program.kernel(entry) {
        let infos: Vec<TokenStream> = k.params.iter().map(param_info).collect();
        let dev = if k.params.iter().any(|p| p.name == "dev") {
            format_ident!("dev_")
        } else {
            format_ident!("dev")
        };
        let mut args = Vec::new();
        let mut binds = Vec::new();
        let mut stores = Vec::new();
        for prm in &k.params {
            let id = ident(&prm.name);
            let pname = &prm.name;
            match prm.kind {
                ParamKind::Uniform(t) => {
                    let (rty, conv) = uniform(t);
                    args.push(quote!(#id: #rty));
                    binds.push(quote!(#p::uniform(#pname, #conv(#id))));
                }
                ParamKind::Input(t) => {
                    let e = stream_elem(t);
                    args.push(quote!(#id: &::ctm::Stream<#e>));
                    binds.push(quote!(#p::input(#pname, #id)));
                }
                ParamKind::Output(t) => {
                    let e = value_elem(t.value_type());
                    args.push(quote!(#id: &mut ::ctm::Stream<#e>));
                    binds.push(quote!(#p::output(#pname, &*#id)));
                    stores.push(quote!(#p::store(&__ctm_outputs, #pname, #id)?;));
                }
                ParamKind::Scatter => {
                    args.push(quote!(#id: &mut ::ctm::Stream<f32>));
                    binds.push(quote!(#p::output(#pname, &*#id)));
                    stores.push(quote!(#p::store(&__ctm_outputs, #pname, #id)?;));
                }
            }
        }
        let api = quote! {
            /// Launches the kernel on `dev`: the domain is the outputs'
            /// shape (every output must have it); outputs are overwritten.
            ///
            /// # Errors
            /// [`::ctm::Error::Unavailable`] when the device's target cannot
            /// run the kernel (the reason is embedded), a stream size that
            /// does not fit, and the device's faults and limits.
            #[allow(clippy::too_many_arguments, clippy::needless_borrow)]
            pub fn launch(#dev: &mut ::ctm::Device, #(#args),*) -> ::core::result::Result<::ctm::Stats, ::ctm::Error> {
                let __ctm_bound = [#(#binds),*];
                let (__ctm_outputs, __ctm_stats) = #p::launch_image(#dev, &IMAGE, &__ctm_bound)?;
                #(#stores)*
                ::core::result::Result::Ok(__ctm_stats)
            }
        };
        (
            infos,
            api,
            format!("The kernel `{entry}`, compiled by `ctm_kernel!`."),
        )
    } else {
        let ty = program.reduction(entry).map_or(Type::F32, |r| r.ty);
        let v = value_elem(ty);
        let api = quote! {
            /// Runs the reduction over `input` on `dev`: the one value left.
            ///
            /// # Errors
            /// As [`reduce_with_stats`].
            pub fn reduce(dev: &mut ::ctm::Device, input: &::ctm::Stream<#v>) -> ::core::result::Result<#v, ::ctm::Error> {
                #p::reduce_image(dev, &IMAGE, input).map(|(v, _)| v)
            }

            /// Runs the reduction over `input` on `dev`: the value and the
            /// statistics of every pass.
            ///
            /// # Errors
            /// [`::ctm::Error::Unavailable`] when the device's target cannot
            /// run it, an empty stream, and the device's faults.
            pub fn reduce_with_stats(dev: &mut ::ctm::Device, input: &::ctm::Stream<#v>) -> ::core::result::Result<(#v, ::ctm::Stats), ::ctm::Error> {
                #p::reduce_image(dev, &IMAGE, input)
            }
        };
        (
            Vec::new(),
            api,
            format!("The reduction `{entry}`, compiled by `ctm_kernel!`."),
        )
    };
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case, dead_code, clippy::all)]
        pub mod #name {
            /// The parameters, in declaration order.
            pub const PARAMS: &[::ctm::ParamInfo] = &[#(#params),*];
            /// The front end's warnings for the `ctm_kernel!` invocation.
            pub const WARNINGS: &[&str] = &[#(#warnings),*];
            #consts
            /// Everything compiled for it, per machine target.
            pub const IMAGE: ::ctm::KernelImage = ::ctm::KernelImage {
                name: #entry,
                params: PARAMS,
                builds: &[#(#build_list),*],
                warnings: WARNINGS,
            };
            #api
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_keywords_become_raw_or_suffixed_identifiers() {
        assert_eq!(ident("saxpy").to_string(), "saxpy");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("match").to_string(), "r#match");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("crate").to_string(), "crate_");
    }

    #[test]
    fn language_types_map_to_rust_types() {
        let text = |t: Type| uniform(t).0.to_string();
        assert_eq!(text(Type::Vec3), "[f32 ; 3]");
        assert_eq!(text(Type::Mat4), "[f32 ; 16]");
        assert_eq!(
            text(Type::Array(ctm_frontend::types::ArrayType {
                elem: ScalarOrVector::Vec4,
                len: 8
            })),
            "[[f32 ; 4] ; 8]"
        );
        assert_eq!(
            stream_elem(StreamType::Unorm8x4).to_string(),
            ":: ctm :: Unorm8x4"
        );
        assert_eq!(value_elem(Type::Vec2).to_string(), "[f32 ; 2]");
    }
}

//! Binding data to an entry point's parameters: the `--domain`, `--input`,
//! `--uniform` and `--output` rules of spec §9.
//!
//! - The domain is `--domain WxH`; else the shape of the first input
//!   stream, in command-line order, that has one of its own (a `.npy`
//!   file); else 256×256.
//! - An input without `--input` is `random`; `random`, `seq`, `const:V`
//!   and raw `.f32` files take the domain's shape; a `.npy` input keeps its
//!   own shape (gathers clamp to its edges).
//! - A uniform without `--uniform` is zero (`false`).
//! - A name given twice, a name the entry point does not have, or a
//!   parameter of the wrong kind is an [`ArgsError`] listing what would fit.
//! - A reduction takes one input, named like its first parameter, and one
//!   output, named like the reduction; it has no uniforms.

use crate::io::{self, InputSource, IoError, SourceError, UniformError};
use ctm_frontend::Entry;
use ctm_frontend::data::{KernelArgs, ParamData, StreamData};
use ctm_frontend::tast::{Kernel, ParamKind, Reduction};
use ctm_frontend::types::{StreamType, Type};

/// The domain used when nothing gives one (spec §9).
pub const DEFAULT_DOMAIN: Domain = Domain {
    width: 256,
    height: 256,
};

/// Most elements a domain may have (2^26: a `vec4` stream is then 1 GiB).
pub const MAX_DOMAIN_ELEMENTS: usize = 1 << 26;

/// A 2-D domain: `width` columns (i) by `height` rows (j).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Domain {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

/// A malformed or too large `--domain`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// Not `WxH` with positive integers.
    #[error("`{0}` is not a domain: write WxH with positive integers, e.g. 256x256")]
    Syntax(String),
    /// More than [`MAX_DOMAIN_ELEMENTS`] elements.
    #[error("the domain {domain} has more than {MAX_DOMAIN_ELEMENTS} elements")]
    TooLarge {
        /// The domain as written, `WxH`.
        domain: String,
    },
}

impl Domain {
    /// A domain of `width` × `height`.
    ///
    /// # Errors
    /// [`DomainError::Syntax`] for an empty side, [`DomainError::TooLarge`].
    pub fn new(width: usize, height: usize) -> Result<Domain, DomainError> {
        if width == 0 || height == 0 {
            return Err(DomainError::Syntax(format!("{width}x{height}")));
        }
        if width
            .checked_mul(height)
            .is_none_or(|n| n > MAX_DOMAIN_ELEMENTS)
        {
            return Err(DomainError::TooLarge {
                domain: format!("{width}x{height}"),
            });
        }
        Ok(Domain { width, height })
    }

    /// Parses `WxH` (also `WXH`), e.g. `640x480`.
    ///
    /// # Errors
    /// [`DomainError`].
    pub fn parse(text: &str) -> Result<Domain, DomainError> {
        let syntax = || DomainError::Syntax(text.to_string());
        let (w, h) = text.split_once(['x', 'X']).ok_or_else(syntax)?;
        let side = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            s.parse::<usize>().map_err(|_| DomainError::TooLarge {
                domain: text.to_string(),
            })
        };
        let (width, height) = (side(w)?, side(h)?);
        if width == 0 || height == 0 {
            return Err(syntax());
        }
        Domain::new(width, height)
    }

    /// `(width, height)`.
    pub fn pair(self) -> (usize, usize) {
        (self.width, self.height)
    }
}

impl std::fmt::Display for Domain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// The data options of a run, as given (in command-line order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInputs {
    /// `--domain`.
    pub domain: Option<Domain>,
    /// `--input NAME=SRC`, in order.
    pub inputs: Vec<(String, InputSource)>,
    /// `--uniform NAME=VALUE`, in order, the value as written.
    pub uniforms: Vec<(String, String)>,
}

/// The data bound to an entry point.
#[derive(Clone, Debug, PartialEq)]
pub enum RunData {
    /// A kernel's arguments.
    Kernel(KernelArgs),
    /// A reduction's input stream.
    Reduction(StreamData),
}

/// Which option a name came with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flag {
    /// `--input`
    Input,
    /// `--uniform`
    Uniform,
    /// `--output`
    Output,
}

impl std::fmt::Display for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Flag::Input => "--input",
            Flag::Uniform => "--uniform",
            Flag::Output => "--output",
        })
    }
}

/// Data options that do not fit the entry point (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ArgsError {
    /// A file the run would write is a file it reads, or another output.
    #[error("{writer} would overwrite `{}`, which is {other}", path.display())]
    PathClash {
        /// The option writing the file (`-o`, `--output r`, `--trace`).
        writer: String,
        /// The file.
        path: std::path::PathBuf,
        /// What else uses it ("the source file", "written by --trace", ...).
        other: String,
    },
    /// A name the entry point has no parameter of that kind for.
    #[error("{flag} {name}: `{entry}` has no {} named `{name}`{}", what(*flag), valid_list(*flag, valid))]
    UnknownName {
        /// The option.
        flag: Flag,
        /// The name given.
        name: String,
        /// The entry point.
        entry: String,
        /// The names that would fit.
        valid: Vec<String>,
    },
    /// A parameter of another kind (`--input` naming a uniform, ...).
    #[error("{flag} {name}: `{name}` is {actual}, not {}{}", what_a(*flag), valid_list(*flag, valid))]
    WrongKind {
        /// The option.
        flag: Flag,
        /// The name given.
        name: String,
        /// What the parameter is (`a uniform`, `an output stream`, ...).
        actual: &'static str,
        /// The names that would fit.
        valid: Vec<String>,
    },
    /// The same name twice.
    #[error("{flag} {name} is given twice")]
    Duplicate {
        /// The option.
        flag: Flag,
        /// The name.
        name: String,
    },
    /// A bad `SRC`.
    #[error("--input {name}: {source}")]
    Source {
        /// The input.
        name: String,
        /// What is wrong.
        source: SourceError,
    },
    /// A file that cannot be read as the input.
    #[error("--input {name}: {source}")]
    Io {
        /// The input.
        name: String,
        /// What is wrong.
        source: IoError,
    },
    /// A raw `.f32` input with no domain to go by.
    #[error("--input {name}: a raw .f32 file has no shape; give --domain WxH")]
    RawNeedsDomain {
        /// The input.
        name: String,
    },
    /// The domain a `.npy` input implies is too large.
    #[error("--input {name}: {source}")]
    Domain {
        /// The input.
        name: String,
        /// What is wrong.
        source: DomainError,
    },
    /// A bad `VALUE`.
    #[error("--uniform {name}: {source}")]
    Uniform {
        /// The uniform.
        name: String,
        /// What is wrong.
        source: UniformError,
    },
}

fn what(flag: Flag) -> &'static str {
    match flag {
        Flag::Input => "input stream",
        Flag::Uniform => "uniform",
        Flag::Output => "output",
    }
}

fn what_a(flag: Flag) -> &'static str {
    match flag {
        Flag::Input => "an input stream",
        Flag::Uniform => "a uniform",
        Flag::Output => "an output",
    }
}

fn valid_list(flag: Flag, valid: &[String]) -> String {
    if valid.is_empty() {
        format!(" (it has no {}s)", what(flag))
    } else {
        let names: Vec<String> = valid.iter().map(|n| format!("`{n}`")).collect();
        format!(" (valid: {})", names.join(", "))
    }
}

fn kind_name(kind: &ParamKind) -> &'static str {
    match kind {
        ParamKind::Uniform(_) => "a uniform",
        ParamKind::Input(_) => "an input stream",
        ParamKind::Output(_) => "an output stream",
        ParamKind::Scatter => "a scatter output",
    }
}

fn fits(flag: Flag, kind: &ParamKind) -> bool {
    match flag {
        Flag::Input => matches!(kind, ParamKind::Input(_)),
        Flag::Uniform => matches!(kind, ParamKind::Uniform(_)),
        Flag::Output => matches!(kind, ParamKind::Output(_) | ParamKind::Scatter),
    }
}

/// The parameter names `flag` accepts for `kernel`.
fn kernel_names(kernel: &Kernel, flag: Flag) -> Vec<String> {
    kernel
        .params
        .iter()
        .filter(|p| fits(flag, &p.kind))
        .map(|p| p.name.clone())
        .collect()
}

/// Finds `name` among `kernel`'s parameters of the kind `flag` sets.
fn kernel_param(kernel: &Kernel, flag: Flag, name: &str) -> Result<usize, ArgsError> {
    match kernel.params.iter().position(|p| p.name == name) {
        Some(i) if fits(flag, &kernel.params[i].kind) => Ok(i),
        Some(i) => Err(ArgsError::WrongKind {
            flag,
            name: name.to_string(),
            actual: kind_name(&kernel.params[i].kind),
            valid: kernel_names(kernel, flag),
        }),
        None => Err(ArgsError::UnknownName {
            flag,
            name: name.to_string(),
            entry: kernel.name.clone(),
            valid: kernel_names(kernel, flag),
        }),
    }
}

/// The name `--input` uses for a reduction: its first parameter's.
pub fn reduction_input_name(reduction: &Reduction) -> &str {
    reduction
        .locals
        .get(reduction.params[0].index())
        .map_or("a", |l| l.name.as_str())
}

/// The stream type a reduction's input is read as.
fn reduction_stream_type(reduction: &Reduction) -> StreamType {
    match reduction.ty {
        Type::Vec2 => StreamType::Vec2,
        Type::Vec4 => StreamType::Vec4,
        _ => StreamType::F32,
    }
}

/// Rejects a name given twice.
fn no_duplicates<'a>(flag: Flag, names: impl Iterator<Item = &'a str>) -> Result<(), ArgsError> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(ArgsError::Duplicate {
                flag,
                name: n.to_string(),
            });
        }
    }
    Ok(())
}

/// Checks `--output` names against `entry`.
///
/// # Errors
/// [`ArgsError::UnknownName`], [`ArgsError::WrongKind`] or
/// [`ArgsError::Duplicate`].
pub fn check_output_names<'a>(
    entry: Entry<'_>,
    names: impl Iterator<Item = &'a str> + Clone,
) -> Result<(), ArgsError> {
    no_duplicates(Flag::Output, names.clone())?;
    for name in names {
        match entry {
            Entry::Kernel(k) => {
                kernel_param(k, Flag::Output, name)?;
            }
            Entry::Reduction(r) if r.name == name => {}
            Entry::Reduction(r) => {
                return Err(ArgsError::UnknownName {
                    flag: Flag::Output,
                    name: name.to_string(),
                    entry: r.name.clone(),
                    valid: vec![r.name.clone()],
                });
            }
        }
    }
    Ok(())
}

/// The identity of a path for comparisons: canonical when it exists, else
/// its canonical directory joined with its name (a file about to be
/// created), else the path as given.
fn path_identity(path: &std::path::Path) -> std::path::PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    match (parent.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// Refuses a run whose outputs would overwrite one of its inputs or each
/// other (issue 13: `ctmc X.ck -o X.ck` replaced the source by the ELF;
/// `--trace F --output r=F` wrote both to one file). `reads` and `writes`
/// pair a description (`the source file`, `-o`, `--output r`, ...) with a
/// path; `-` (stdout) is never a clash.
///
/// # Errors
/// [`ArgsError::PathClash`] naming the first clash.
pub fn check_distinct_paths(
    reads: &[(String, &std::path::Path)],
    writes: &[(String, &std::path::Path)],
) -> Result<(), ArgsError> {
    let stdout = std::path::Path::new("-");
    let read_ids: Vec<(&String, std::path::PathBuf)> = reads
        .iter()
        .map(|(what, p)| (what, path_identity(p)))
        .collect();
    let mut written: Vec<(&String, std::path::PathBuf)> = Vec::new();
    for (writer, path) in writes {
        if *path == stdout {
            continue;
        }
        let id = path_identity(path);
        let clash = |other: String| ArgsError::PathClash {
            writer: writer.clone(),
            path: path.to_path_buf(),
            other,
        };
        if let Some((what, _)) = read_ids.iter().find(|(_, r)| *r == id) {
            return Err(clash(what.to_string()));
        }
        if let Some((other, _)) = written.iter().find(|(_, w)| *w == id) {
            return Err(clash(format!("also written by {other}")));
        }
        written.push((writer, id));
    }
    Ok(())
}

/// Loads the stream `source` for input `name` of type `ty`.
fn load(
    name: &str,
    source: &InputSource,
    ty: StreamType,
    domain: Option<Domain>,
) -> Result<StreamData, ArgsError> {
    let shape = domain.unwrap_or(DEFAULT_DOMAIN).pair();
    let io_error = |source| ArgsError::Io {
        name: name.to_string(),
        source,
    };
    match source {
        InputSource::Npy(path) => io::read_npy_stream(path, ty).map_err(io_error),
        InputSource::RawF32(path) => {
            let domain = domain.ok_or_else(|| ArgsError::RawNeedsDomain {
                name: name.to_string(),
            })?;
            io::read_raw_stream(path, ty, domain.pair()).map_err(io_error)
        }
        InputSource::Random => Ok(io::source::random_stream(name, ty, shape)),
        InputSource::Seq => Ok(io::source::seq_stream(ty, shape)),
        InputSource::Const(values) => {
            io::source::const_stream(values, ty, shape).map_err(|source| ArgsError::Source {
                name: name.to_string(),
                source,
            })
        }
    }
}

/// Loads every `.npy` input (in order) and settles the domain.
///
/// `inputs` holds (name, source, type) in command-line order.
fn load_files(
    inputs: &[(&str, &InputSource, StreamType)],
    given: Option<Domain>,
) -> Result<(Vec<Option<StreamData>>, Option<Domain>), ArgsError> {
    let mut domain = given;
    let mut loaded = Vec::with_capacity(inputs.len());
    for &(name, source, ty) in inputs {
        if let InputSource::Npy(_) = source {
            let stream = load(name, source, ty, domain)?;
            if domain.is_none() {
                domain = Some(Domain::new(stream.width, stream.height).map_err(|source| {
                    ArgsError::Domain {
                        name: name.to_string(),
                        source,
                    }
                })?);
            }
            loaded.push(Some(stream));
        } else {
            loaded.push(None);
        }
    }
    Ok((loaded, domain))
}

/// Binds `inputs` to `entry`'s parameters.
///
/// Names are checked before any file is read.
///
/// # Errors
/// [`ArgsError`] for a name that does not fit, a bad source or value, or a
/// file that cannot be read as its stream.
pub fn bind_inputs(entry: Entry<'_>, inputs: &RunInputs) -> Result<RunData, ArgsError> {
    no_duplicates(Flag::Input, inputs.inputs.iter().map(|(n, _)| n.as_str()))?;
    no_duplicates(
        Flag::Uniform,
        inputs.uniforms.iter().map(|(n, _)| n.as_str()),
    )?;
    match entry {
        Entry::Kernel(kernel) => bind_kernel(kernel, inputs).map(RunData::Kernel),
        Entry::Reduction(reduction) => bind_reduction(reduction, inputs).map(RunData::Reduction),
    }
}

fn bind_kernel(kernel: &Kernel, inputs: &RunInputs) -> Result<KernelArgs, ArgsError> {
    // Names first: nothing is read for a command line that cannot work.
    let mut given = Vec::with_capacity(inputs.inputs.len());
    for (name, source) in &inputs.inputs {
        let i = kernel_param(kernel, Flag::Input, name)?;
        let ParamKind::Input(ty) = kernel.params[i].kind else {
            unreachable!("kernel_param checked the kind")
        };
        given.push((i, name.as_str(), source, ty));
    }
    let mut uniforms = vec![None; kernel.params.len()];
    for (name, text) in &inputs.uniforms {
        let i = kernel_param(kernel, Flag::Uniform, name)?;
        let ParamKind::Uniform(ty) = kernel.params[i].kind else {
            unreachable!("kernel_param checked the kind")
        };
        let value = io::parse_uniform(ty, text).map_err(|source| ArgsError::Uniform {
            name: name.clone(),
            source,
        })?;
        uniforms[i] = Some(value);
    }
    let files: Vec<_> = given.iter().map(|&(_, n, s, t)| (n, s, t)).collect();
    let (loaded, domain) = load_files(&files, inputs.domain)?;
    let mut streams = vec![None; kernel.params.len()];
    for (&(i, name, source, ty), file) in given.iter().zip(loaded) {
        streams[i] = Some(match file {
            Some(stream) => stream,
            None => load(name, source, ty, domain)?,
        });
    }
    let domain = domain.unwrap_or(DEFAULT_DOMAIN);
    let mut params = Vec::with_capacity(kernel.params.len());
    for (i, p) in kernel.params.iter().enumerate() {
        params.push(match p.kind {
            ParamKind::Uniform(ty) => {
                ParamData::Uniform(uniforms[i].take().unwrap_or_else(|| io::zero_uniform(ty)))
            }
            ParamKind::Input(ty) => ParamData::Input(match streams[i].take() {
                Some(s) => s,
                None => io::source::random_stream(&p.name, ty, domain.pair()),
            }),
            ParamKind::Output(_) | ParamKind::Scatter => ParamData::Output,
        });
    }
    Ok(KernelArgs {
        domain: domain.pair(),
        params,
    })
}

fn bind_reduction(reduction: &Reduction, inputs: &RunInputs) -> Result<StreamData, ArgsError> {
    let input_name = reduction_input_name(reduction);
    if let Some((name, _)) = inputs.uniforms.first() {
        return Err(ArgsError::UnknownName {
            flag: Flag::Uniform,
            name: name.clone(),
            entry: reduction.name.clone(),
            valid: vec![],
        });
    }
    for (name, _) in &inputs.inputs {
        if name != input_name {
            return Err(ArgsError::UnknownName {
                flag: Flag::Input,
                name: name.clone(),
                entry: reduction.name.clone(),
                valid: vec![input_name.to_string()],
            });
        }
    }
    let ty = reduction_stream_type(reduction);
    match inputs.inputs.first() {
        None => Ok(io::source::random_stream(
            input_name,
            ty,
            inputs.domain.unwrap_or(DEFAULT_DOMAIN).pair(),
        )),
        Some((name, source)) => {
            let (mut loaded, domain) = load_files(&[(name, source, ty)], inputs.domain)?;
            match loaded.pop().flatten() {
                Some(stream) => Ok(stream),
                None => load(name, source, ty, domain),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert_eq!(
            Domain::parse("640x480"),
            Ok(Domain {
                width: 640,
                height: 480
            })
        );
        assert_eq!(
            Domain::parse("1X1"),
            Ok(Domain {
                width: 1,
                height: 1
            })
        );
        for bad in [
            "", "x", "10", "10x", "x10", "0x10", "10x0", "-1x5", "1.5x2", "10 x 10", "10x10x2",
            "axb", "+1x1",
        ] {
            assert!(
                matches!(Domain::parse(bad), Err(DomainError::Syntax(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Domain::parse("100000x100000"),
            Err(DomainError::TooLarge { .. })
        ));
        assert!(matches!(
            Domain::parse("99999999999999999999999x1"),
            Err(DomainError::TooLarge { .. })
        ));
        assert_eq!(
            Domain::parse("8192x8192").map(|d| d.to_string()),
            Ok("8192x8192".into())
        );
    }

    use ctm_frontend::Span;
    use ctm_frontend::data::{StreamBuffer, UniformValue};
    use ctm_frontend::tast::{Block, KernelParam, Local, LocalId};
    use ctm_frontend::types::OutputType;
    use ctm_frontend::value::Value;

    fn empty_block() -> Block {
        Block {
            stmts: vec![],
            tail: None,
            span: Span::default(),
        }
    }

    /// `kernel k(a: f32, n: i32, x: In<f32>, y: In<vec4>, r: Out<f32>, s: Scatter<f32>)`
    fn kernel() -> Kernel {
        let p = |name: &str, kind| KernelParam {
            name: name.into(),
            kind,
            span: Span::default(),
        };
        Kernel {
            name: "k".into(),
            params: vec![
                p("a", ParamKind::Uniform(Type::F32)),
                p("n", ParamKind::Uniform(Type::I32)),
                p("x", ParamKind::Input(StreamType::F32)),
                p("y", ParamKind::Input(StreamType::Vec4)),
                p("r", ParamKind::Output(OutputType::F32)),
                p("s", ParamKind::Scatter),
            ],
            locals: vec![],
            body: empty_block(),
            span: Span::default(),
        }
    }

    fn reduction() -> Reduction {
        let local = |name: &str| Local {
            name: name.into(),
            ty: Type::Vec2,
            mutable: false,
            span: Span::default(),
        };
        Reduction {
            name: "sum".into(),
            ty: Type::Vec2,
            params: [LocalId(0), LocalId(1)],
            locals: vec![local("lhs"), local("rhs")],
            body: empty_block(),
            span: Span::default(),
        }
    }

    fn inputs(domain: Option<&str>, ins: &[(&str, &str)], unis: &[(&str, &str)]) -> RunInputs {
        RunInputs {
            domain: domain.map(|d| Domain::parse(d).unwrap()),
            inputs: ins
                .iter()
                .map(|(n, s)| (n.to_string(), io::parse_input_source(s).unwrap()))
                .collect(),
            uniforms: unis
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn bind(k: &Kernel, i: &RunInputs) -> Result<KernelArgs, ArgsError> {
        match bind_inputs(Entry::Kernel(k), i)? {
            RunData::Kernel(a) => Ok(a),
            RunData::Reduction(_) => panic!("a kernel got reduction data"),
        }
    }

    #[test]
    fn defaults_fill_everything() {
        let k = kernel();
        let args = bind(&k, &RunInputs::default()).unwrap();
        assert_eq!(args.domain, (256, 256));
        assert_eq!(
            args.params[0],
            ParamData::Uniform(UniformValue::Value(Value::f32(0.0)))
        );
        assert_eq!(
            args.params[1],
            ParamData::Uniform(UniformValue::Value(Value::I32(0)))
        );
        let ParamData::Input(x) = &args.params[2] else {
            panic!()
        };
        assert_eq!((x.width, x.height, x.channels), (256, 256, 1));
        assert_eq!(
            x,
            &io::source::random_stream("x", StreamType::F32, (256, 256))
        );
        let ParamData::Input(y) = &args.params[3] else {
            panic!()
        };
        assert_eq!(y.channels, 4);
        assert_eq!(args.params[4], ParamData::Output);
        assert_eq!(args.params[5], ParamData::Output);
    }

    #[test]
    fn given_values_and_domain() {
        let k = kernel();
        let args = bind(
            &k,
            &inputs(
                Some("4x3"),
                &[("y", "const:1,2,3,4"), ("x", "seq")],
                &[("a", "2.5"), ("n", "0x10")],
            ),
        )
        .unwrap();
        assert_eq!(args.domain, (4, 3));
        assert_eq!(
            args.params[0],
            ParamData::Uniform(UniformValue::Value(Value::f32(2.5)))
        );
        assert_eq!(
            args.params[1],
            ParamData::Uniform(UniformValue::Value(Value::I32(16)))
        );
        let ParamData::Input(x) = &args.params[2] else {
            panic!()
        };
        assert_eq!(x.read(3, 2)[0], 11.0);
        let ParamData::Input(y) = &args.params[3] else {
            panic!()
        };
        assert_eq!(y.read(0, 0), [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn domain_comes_from_the_first_npy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("y.npy");
        let stream = io::source::seq_stream(StreamType::Vec4, (5, 2));
        io::write_npy_file(&path, &io::stream_to_array(&stream)).unwrap();
        let raw = dir.path().join("x.f32");
        io::write_raw_file(&raw, &[1.0; 10]).unwrap();
        let k = kernel();
        let args = bind(
            &k,
            &inputs(
                None,
                &[("x", raw.to_str().unwrap()), ("y", path.to_str().unwrap())],
                &[],
            ),
        )
        .unwrap();
        assert_eq!(args.domain, (5, 2));
        let ParamData::Input(x) = &args.params[2] else {
            panic!()
        };
        assert_eq!(x.buffer, StreamBuffer::F32(vec![1.0; 10]));
        // An explicit domain wins; the .npy keeps its own shape.
        let args = bind(
            &k,
            &inputs(Some("3x3"), &[("y", path.to_str().unwrap())], &[]),
        )
        .unwrap();
        assert_eq!(args.domain, (3, 3));
        let ParamData::Input(y) = &args.params[3] else {
            panic!()
        };
        assert_eq!((y.width, y.height), (5, 2));
        // A raw file with nothing to give it a shape.
        let e = bind(&k, &inputs(None, &[("x", raw.to_str().unwrap())], &[])).unwrap_err();
        assert!(matches!(e, ArgsError::RawNeedsDomain { .. }), "{e}");
    }

    #[test]
    fn names_must_fit() {
        let k = kernel();
        let e = bind(&k, &inputs(None, &[("z", "seq")], &[])).unwrap_err();
        assert!(matches!(e, ArgsError::UnknownName { .. }));
        assert_eq!(
            e.to_string(),
            "--input z: `k` has no input stream named `z` (valid: `x`, `y`)"
        );
        let e = bind(&k, &inputs(None, &[("a", "seq")], &[])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--input a: `a` is a uniform, not an input stream (valid: `x`, `y`)"
        );
        let e = bind(&k, &inputs(None, &[], &[("x", "1")])).unwrap_err();
        assert!(
            matches!(
                e,
                ArgsError::WrongKind {
                    actual: "an input stream",
                    ..
                }
            ),
            "{e}"
        );
        let e = bind(&k, &inputs(None, &[("x", "seq"), ("x", "seq")], &[])).unwrap_err();
        assert!(matches!(e, ArgsError::Duplicate { .. }), "{e}");
        let e = bind(&k, &inputs(None, &[], &[("n", "1.5")])).unwrap_err();
        assert!(matches!(e, ArgsError::Uniform { .. }), "{e}");
        let e = bind(&k, &inputs(None, &[("y", "const:1,2")], &[])).unwrap_err();
        assert!(matches!(e, ArgsError::Source { .. }), "{e}");
        let e = bind(&k, &inputs(None, &[("x", "/no/such/file.npy")], &[])).unwrap_err();
        assert!(matches!(e, ArgsError::Io { .. }), "{e}");
        let entry = Entry::Kernel(&k);
        assert!(check_output_names(entry, ["r", "s"].into_iter()).is_ok());
        assert!(matches!(
            check_output_names(entry, ["x"].into_iter()),
            Err(ArgsError::WrongKind { .. })
        ));
        assert!(matches!(
            check_output_names(entry, ["q"].into_iter()),
            Err(ArgsError::UnknownName { .. })
        ));
        assert!(matches!(
            check_output_names(entry, ["r", "r"].into_iter()),
            Err(ArgsError::Duplicate { .. })
        ));
    }

    #[test]
    fn reductions_take_one_input() {
        let r = reduction();
        let entry = Entry::Reduction(&r);
        let RunData::Reduction(s) = bind_inputs(entry, &RunInputs::default()).unwrap() else {
            panic!()
        };
        assert_eq!((s.width, s.height, s.channels), (256, 256, 2));
        let RunData::Reduction(s) =
            bind_inputs(entry, &inputs(Some("7x1"), &[("lhs", "seq")], &[])).unwrap()
        else {
            panic!()
        };
        assert_eq!((s.width, s.read(6, 0)[0]), (7, 6.0));
        let e = bind_inputs(entry, &inputs(None, &[("rhs", "seq")], &[])).unwrap_err();
        assert!(e.to_string().contains("(valid: `lhs`)"), "{e}");
        let e = bind_inputs(entry, &inputs(None, &[], &[("a", "1")])).unwrap_err();
        assert!(e.to_string().contains("has no uniforms"), "{e}");
        assert!(check_output_names(entry, ["sum"].into_iter()).is_ok());
        assert!(check_output_names(entry, ["lhs"].into_iter()).is_err());
    }
}

//! Programs compiled or loaded at run time: [`compile_kernel`] (the
//! pipeline `ctmc` runs, for one target), [`Program::from_elf`], and
//! [`Program::launch`] / [`Program::reduce`] with arguments by name
//! ([`Arg`]).

use super::launch::{Bound, launch_kernel, launch_reduction};
use super::{Device, Element, Error, Role, Stats, Stream, Uniform};
use ctm_driver::pipeline::compile_entry;
use ctm_driver::target::{CodegenFailure, ElfEntry, MachineProgram};
use ctm_driver::{CompileError, CompileOptions, OptLevel, Target};
use ctm_frontend::data::StreamData;
use ctm_frontend::diag::{self, Diagnostic};
use ctm_frontend::tast::{KernelParam, ParamKind};

/// Options of [`compile_kernel`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The entry point (`--kernel NAME`); `None`: the source's only one.
    pub kernel: Option<String>,
    /// Optimisation level (default `-O2`, as `ctmc`).
    pub opt_level: OptLevel,
}

impl Options {
    /// The options choosing the entry point `name`.
    pub fn kernel(name: &str) -> Options {
        Options {
            kernel: Some(name.to_string()),
            ..Options::default()
        }
    }
}

/// What a program's entry point is.
#[derive(Clone, Debug)]
enum Shape {
    Kernel(Vec<KernelParam>),
    /// A reduction with values of this many lanes.
    Reduction(usize),
}

/// A compiled entry point of one target, ready to launch on a
/// [`Device`] of that target.
#[derive(Debug)]
pub struct Program {
    entry: String,
    shape: Shape,
    machine: Box<dyn MachineProgram>,
    warnings: Vec<String>,
}

/// An argument of [`Program::launch`], by parameter name.
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    /// An input stream.
    Input(&'a str, StreamData),
    /// A uniform.
    Uniform(&'a str, Uniform),
    /// The domain (width, height); by default the first input's shape.
    Domain(usize, usize),
}

impl<'a> Arg<'a> {
    /// The input stream `name`.
    pub fn input<T: Element>(name: &'a str, stream: &Stream<T>) -> Arg<'a> {
        Arg::Input(name, stream.to_data())
    }

    /// The uniform `name`.
    pub fn uniform(name: &'a str, value: impl Into<Uniform>) -> Arg<'a> {
        Arg::Uniform(name, value.into())
    }
}

/// What a runtime launch produced.
#[derive(Clone, Debug)]
pub struct Launched {
    /// What the device measured.
    pub stats: Stats,
    outputs: Vec<(String, StreamData)>,
}

impl Launched {
    /// The output stream `name` as a stream of `T` (`f32`, `[f32; 2]`,
    /// `[f32; 4]`).
    ///
    /// # Errors
    /// [`Error::ArgumentCount`] for no such output,
    /// [`Error::ArgumentType`] for another element type.
    pub fn output<T: Element>(&self, name: &str) -> Result<Stream<T>, Error> {
        let (_, data) = self
            .outputs
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| Error::ArgumentCount {
                entry: self.stats.entry.clone(),
                detail: format!("there is no output `{name}`"),
            })?;
        Stream::from_data(data).ok_or_else(|| Error::ArgumentType {
            name: name.to_string(),
            expected: format!("a stream of {} lanes", data.channels),
            found: format!("Stream<{}>", T::NAME),
        })
    }

    /// The names of the outputs, in parameter order.
    pub fn output_names(&self) -> impl Iterator<Item = &str> {
        self.outputs.iter().map(|(n, _)| n.as_str())
    }
}

fn render(diags: &[Diagnostic], source: &str) -> String {
    diag::render(diags, "kernel.ck", source, false)
}

/// Compiles the entry point of `source` for `target` exactly as `ctmc
/// FILE.ck --target T` does (front end with the target's rules, the IR
/// pipeline, the target's code generator and validator).
///
/// ```
/// use ctm::{Arg, Device, Options, Stream, Target};
/// let src = "kernel twice(x: In<f32>, r: Out<f32>) { r = 2.0 * x; }";
/// let program = ctm::compile_kernel(src, Target::X1k, &Options::default())?;
/// let x = Stream::from_vec(4, 1, vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let out = program.launch(&mut Device::x1k(), &[Arg::input("x", &x)])?;
/// assert_eq!(out.output::<f32>("r")?.to_vec(), vec![2.0, 4.0, 6.0, 8.0]);
/// # Ok::<(), ctm::Error>(())
/// ```
///
/// # Errors
/// [`Error::Source`] for errors in the source (rendered as `ctmc`
/// renders them); [`Error::Unavailable`] when the source is valid
/// language but `target` cannot run it (a rule of the target, e.g. x1k's
/// integer operators, or a code generator not built yet);
/// [`Error::Limit`] beyond a hardware limit; [`Error::ArgumentCount`]
/// for an entry point that `options.kernel` does not choose.
pub fn compile_kernel(source: &str, target: Target, options: &Options) -> Result<Program, Error> {
    let Some(machine) = ctm_driver::target::machine(target) else {
        return Err(Error::Unavailable {
            entry: options.kernel.clone().unwrap_or_default(),
            target,
            reason: "`ref` is the reference interpreter and has no machine code".into(),
        });
    };
    let compile_options = CompileOptions {
        target,
        kernel: options.kernel.clone(),
        opt_level: options.opt_level,
    };
    let compilation = match ctm_driver::compile(source, &compile_options) {
        Ok(c) => c,
        Err(CompileError::Source(diags)) => {
            // Valid language that only this target refuses is
            // "not available", as for `ctm_kernel!`.
            let neutral = CompileOptions {
                target: Target::Ref,
                ..compile_options.clone()
            };
            return Err(match ctm_driver::compile(source, &neutral) {
                Ok(c) => Error::Unavailable {
                    entry: c.entry().name().to_string(),
                    target,
                    reason: render(&diags, source),
                },
                Err(_) => Error::Source(render(&diags, source)),
            });
        }
        Err(CompileError::Entry(d)) => {
            return Err(Error::ArgumentCount {
                entry: options.kernel.clone().unwrap_or_default(),
                detail: d.message.clone(),
            });
        }
        Err(CompileError::NoProgram) => {
            return Err(Error::Internal("the front end produced no program".into()));
        }
    };
    let entry = compilation.entry();
    let name = entry.name().to_string();
    let shape = match entry {
        ctm_frontend::Entry::Kernel(k) => Shape::Kernel(k.params.clone()),
        ctm_frontend::Entry::Reduction(r) => {
            Shape::Reduction(ctm_driver::pipeline::reduction_stream_type(r.ty).channels())
        }
    };
    let machine =
        compile_entry(Some(source), &compilation, machine, None).map_err(|e| match e {
            CodegenFailure::Limit(d) => Error::Limit(render(&[*d], source)),
            CodegenFailure::Unavailable(reason) => Error::Unavailable {
                entry: name.clone(),
                target,
                reason,
            },
            CodegenFailure::Internal(e) => Error::Internal(e.to_string()),
        })?;
    Ok(Program {
        entry: name,
        shape,
        machine,
        warnings: compilation
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

impl Program {
    /// Loads an ELF file of any machine target (as `ctmc run FILE.elf`
    /// does), validated completely.
    ///
    /// # Errors
    /// [`Error::Io`] when it is not a valid ctm ELF file.
    pub fn from_elf(bytes: &[u8]) -> Result<Program, Error> {
        let target = ctm_driver::target::elf_machine(bytes)
            .and_then(ctm_driver::target::by_elf_machine)
            .ok_or_else(|| Error::Io("not an ELF file of a ctm machine target".into()))?;
        let machine = target.read_elf(bytes).map_err(Error::Io)?;
        let (entry, shape) = match machine.entry().map_err(Error::Io)? {
            ElfEntry::Kernel(k) => (k.name, Shape::Kernel(k.params)),
            ElfEntry::Reduction(r) => (
                r.name,
                Shape::Reduction(ctm_driver::pipeline::reduction_stream_type(r.ty).channels()),
            ),
        };
        Ok(Program {
            entry,
            shape,
            machine,
            warnings: Vec::new(),
        })
    }

    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.entry
    }

    /// The parameters of a kernel, in declaration order, with their kind
    /// and type as the language writes it (a reduction: none).
    pub fn parameters(&self) -> Vec<(String, Role, String)> {
        let Shape::Kernel(params) = &self.shape else {
            return Vec::new();
        };
        params
            .iter()
            .map(|p| {
                let (role, ty) = match p.kind {
                    ParamKind::Uniform(t) => (Role::Uniform, t.to_string()),
                    ParamKind::Input(t) => (Role::Input, t.name().to_string()),
                    ParamKind::Output(t) => (Role::Output, t.value_type().to_string()),
                    ParamKind::Scatter => (Role::Scatter, "f32".to_string()),
                };
                (p.name.clone(), role, ty)
            })
            .collect()
    }

    /// Whether it is a reduction (run with [`Program::reduce`]).
    pub fn is_reduction(&self) -> bool {
        matches!(self.shape, Shape::Reduction(_))
    }

    /// The target it was compiled for.
    pub fn target(&self) -> Target {
        self.machine.target()
    }

    /// Its ELF file, byte-identical to `ctmc FILE.ck --target T`'s.
    ///
    /// # Errors
    /// [`Error::Internal`] if the ELF writer rejects the program (a bug).
    pub fn elf(&self) -> Result<Vec<u8>, Error> {
        self.machine
            .elf()
            .map_err(|e| Error::Internal(e.to_string()))
    }

    /// The front end's warnings, one line each (`warning[CK0052]: ...`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn check_device(&self, dev: &Device) -> Result<(), Error> {
        if dev.target() == self.target() {
            Ok(())
        } else {
            Err(Error::Unavailable {
                entry: self.entry.clone(),
                target: dev.target(),
                reason: format!("the program was compiled for {}", self.target()),
            })
        }
    }

    /// Launches the kernel on `dev` with `args` by name: every input
    /// stream and uniform once (an ELF's kernel needs only the uniforms
    /// its code reads); outputs have the domain's shape, which is
    /// [`Arg::Domain`] or the first input's.
    ///
    /// # Errors
    /// [`Error::ArgumentCount`] (unknown, repeated or missing names, a
    /// reduction), [`Error::ArgumentType`], [`Error::Unavailable`] on a
    /// device of another target, and the device's errors.
    pub fn launch(&self, dev: &mut Device, args: &[Arg<'_>]) -> Result<Launched, Error> {
        self.check_device(dev)?;
        let Shape::Kernel(params) = &self.shape else {
            return Err(self.count_error(format!(
                "`{}` is a reduction: use Program::reduce",
                self.entry
            )));
        };
        let mut domain = None;
        let mut bound: Vec<(String, Bound)> = Vec::new();
        for arg in args {
            let name = match arg {
                Arg::Domain(w, h) => {
                    domain = Some((*w, *h));
                    continue;
                }
                Arg::Input(n, _) | Arg::Uniform(n, _) => *n,
            };
            if bound.iter().any(|(b, _)| b == name) {
                return Err(self.count_error(format!("`{name}` is given twice")));
            }
            let param = params
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| self.count_error(format!("it has no parameter `{name}`")))?;
            let value = match (arg, param.kind) {
                (Arg::Input(_, data), ParamKind::Input(ty)) => {
                    if !data.fits(ty) {
                        return Err(Error::ArgumentType {
                            name: name.to_string(),
                            expected: format!("Stream of {}", ty.name()),
                            found: format!("a stream of {} lanes", data.channels),
                        });
                    }
                    Bound::Input(data.clone())
                }
                (Arg::Uniform(_, u), ParamKind::Uniform(ty)) => {
                    Bound::Uniform(u.to_value(name, ty)?)
                }
                (arg, kind) => {
                    return Err(Error::ArgumentType {
                        name: name.to_string(),
                        expected: kind_name(&kind).to_string(),
                        found: match arg {
                            Arg::Input(..) => "an input stream".into(),
                            _ => "a uniform".into(),
                        },
                    });
                }
            };
            bound.push((name.to_string(), value));
        }
        let missing: Vec<&str> = params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Input(_) | ParamKind::Uniform(_)))
            .filter(|p| !bound.iter().any(|(b, _)| *b == p.name))
            .map(|p| p.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(self.count_error(format!("no value for {}", missing.join(", "))));
        }
        let (outputs, stats) =
            launch_kernel(dev, self.machine.as_ref(), &self.entry, &bound, domain)?;
        Ok(Launched { stats, outputs })
    }

    /// Runs the reduction over `input` (a stream of the reduction's own
    /// type): its value's lanes and the statistics of every pass.
    ///
    /// # Errors
    /// [`Error::ArgumentCount`] for a kernel, [`Error::ArgumentType`] for
    /// a stream of another type, and the device's errors.
    pub fn reduce<T: Element>(
        &self,
        dev: &mut Device,
        input: &Stream<T>,
    ) -> Result<(Vec<f32>, Stats), Error> {
        self.check_device(dev)?;
        let Shape::Reduction(channels) = self.shape else {
            return Err(
                self.count_error(format!("`{}` is a kernel: use Program::launch", self.entry))
            );
        };
        launch_reduction(dev, &self.elf()?, &self.entry, channels, &input.to_data())
    }

    fn count_error(&self, detail: String) -> Error {
        Error::ArgumentCount {
            entry: self.entry.clone(),
            detail,
        }
    }
}

fn kind_name(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Uniform(t) => format!("a uniform of {t}"),
        ParamKind::Input(t) => format!("an input stream of {}", t.name()),
        ParamKind::Output(t) => format!(
            "an output of {} (outputs are returned, not given)",
            t.value_type()
        ),
        ParamKind::Scatter => "a scatter output (outputs are returned, not given)".into(),
    }
}

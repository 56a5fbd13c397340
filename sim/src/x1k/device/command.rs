//! CTM commands (CTM §2.2, Table 3): the opcode table, the typed
//! [`Command`], and its decoding from and encoding to command-buffer words.
//!
//! "Each CTM command is a 32-bit unsigned integer. It is followed
//! immediately in memory by one or more parameters, each of which is also a
//! 32-bit unsigned integer. No commands take a variable number of
//! parameters" (§2.2). The opcode word is matched exactly; the parameter
//! count comes from the table.
//!
//! **Parameter counts.** Bits 29:16 of every opcode word equal the
//! parameter count minus one (a PM4 type-3 header's count field), except
//! for `init_perf_counters` (`C0010200`) and `read_perf_counters`
//! (`C0010500`), whose words say two parameters while the guide's table and
//! text (§2.2.1: "takes one parameter") say one. The text wins: both take
//! one (`docs/ctm-device.md` §3).
//!
//! **Strict parameters.** Decoding rejects set reserved bits (including the
//! all-reserved parameters of `start_program`, the cache commands, ...),
//! a pitch whose low two bits are set, and the reserved data formats 5..7,
//! each as a typed [`CommandDecodeError`]. The one exception is the low 11
//! bits of base addresses, which the guide says are ignored (§2.2.2).

use std::fmt;

use super::cond::{CondLocation, CondTest, CondWrite};
use super::format::{BaseAddress, FormatError, SurfaceFormat, bits};
use super::params::{ChannelMask, Domain, Height, InputId, OutputId, PerfCounterMode};

/// Whether a command may be issued while a program runs (Table 3's
/// "Pipelined" column). A non-pipelined command "must follow a
/// wait_for_idle command and precede any subsequent start_program command
/// in the command buffer to be predictable" (§2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Pipelined {
    /// Can be issued at any time.
    Yes,
    /// Needs the processors idle.
    No,
}

macro_rules! opcodes {
    ($( $(#[$doc:meta])* $variant:ident = $word:literal, $name:literal, $params:literal, $pipe:ident; )*) => {
        /// A command's opcode (CTM §2.2 Table 3).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[$doc])* $variant, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[ $(Opcode::$variant),* ];

            /// The opcode word.
            pub const fn word(self) -> u32 {
                match self { $(Opcode::$variant => $word,)* }
            }

            /// The guide's name (`set_inp_fmt`, ...).
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// Number of parameter words.
            pub const fn param_count(self) -> u32 {
                match self { $(Opcode::$variant => $params,)* }
            }

            /// Table 3's "Pipelined" column.
            pub const fn pipelined(self) -> Pipelined {
                match self { $(Opcode::$variant => Pipelined::$pipe,)* }
            }

            /// The opcode of a word; `None` if no command has it.
            pub const fn from_word(word: u32) -> Option<Opcode> {
                match word {
                    $($word => Some(Opcode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    /// Initialize performance counters (§2.2.1).
    InitPerfCounters = 0xC001_0200, "init_perf_counters", 1, Yes;
    /// Zero the enabled counters and start them.
    StartPerfCounters = 0xC000_0300, "start_perf_counters", 1, Yes;
    /// Stop the counters.
    StopPerfCounters = 0xC000_0400, "stop_perf_counters", 1, Yes;
    /// Write the counters to memory.
    ReadPerfCounters = 0xC001_0500, "read_perf_counters", 1, No;
    /// Set the PE's conditional value.
    SetCondVal = 0xC000_0600, "set_cond_val", 1, Yes;
    /// Set the domain (i0, j0, i1, j1).
    SetDomain = 0xC003_0700, "set_domain", 4, Yes;
    /// Run the program over the domain.
    StartProgram = 0xC000_0800, "start_program", 1, Yes;
    /// Block until all processors are idle.
    WaitForIdle = 0xC000_0900, "wait_for_idle", 1, Yes;
    /// Instruction base and format (§2.2.2).
    SetInstFmt = 0xC001_0A00, "set_inst_fmt", 2, No;
    /// Input base, format and height.
    SetInpFmt = 0xC003_0B00, "set_inp_fmt", 4, No;
    /// Output base, format and height.
    SetOutFmt = 0xC003_0C00, "set_out_fmt", 4, No;
    /// Conditional buffer base, format and height.
    SetCondOutFmt = 0xC002_0D00, "set_cond_out_fmt", 3, No;
    /// Float constant base and format.
    SetConstfFmt = 0xC001_0E00, "set_constf_fmt", 2, No;
    /// Integer constant base and format.
    SetConstiFmt = 0xC001_0F00, "set_consti_fmt", 2, No;
    /// Boolean constant base and format.
    SetConstbFmt = 0xC001_1000, "set_constb_fmt", 2, No;
    /// Invalidate the instruction cache.
    InvInstCache = 0xC000_1100, "inv_inst_cache", 1, Yes;
    /// Invalidate the float constant cache.
    InvConstfCache = 0xC000_1200, "inv_constf_cache", 1, Yes;
    /// Invalidate the integer constant cache.
    InvConstiCache = 0xC000_1300, "inv_consti_cache", 1, Yes;
    /// Invalidate the boolean constant cache.
    InvConstbCache = 0xC000_1400, "inv_constb_cache", 1, Yes;
    /// Invalidate the conditional output cache.
    InvCondOutCache = 0xC000_1500, "inv_cond_out_cache", 1, Yes;
    /// Invalidate the input cache.
    InvInpCache = 0xC000_1600, "inv_inp_cache", 1, Yes;
    /// Flush the output cache.
    FlushOutCache = 0xC000_1700, "flush_out_cache", 1, Yes;
    /// Flush the conditional output cache.
    FlushCondOutCache = 0xC000_1800, "flush_cond_out_cache", 1, Yes;
    /// Set the output channel write mask.
    SetOutMask = 0xC000_1900, "set_out_mask", 1, Yes;
    /// Set the conditional buffer write mask.
    SetCondOutMask = 0xC000_1A00, "set_cond_out_mask", 1, Yes;
    /// Set the conditional test (§2.2.3).
    SetCondTest = 0xC000_1B00, "set_cond_test", 1, Yes;
    /// Set the conditional test's location.
    SetCondLoc = 0xC000_1C00, "set_cond_loc", 1, Yes;
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which constant client a `set_const*_fmt` command configures.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstKind {
    /// `set_constf_fmt`: float constants.
    Float,
    /// `set_consti_fmt`: integer constants.
    Int,
    /// `set_constb_fmt`: boolean constants.
    Bool,
}

/// A read cache an `inv_*_cache` command invalidates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum InvalidateTarget {
    /// `inv_inst_cache`.
    Instruction,
    /// `inv_constf_cache`.
    FloatConstant,
    /// `inv_consti_cache`.
    IntConstant,
    /// `inv_constb_cache`.
    BoolConstant,
    /// `inv_cond_out_cache`.
    ConditionalOutput,
    /// `inv_inp_cache`.
    Input,
}

/// A write cache a `flush_*_cache` command flushes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FlushTarget {
    /// `flush_out_cache`.
    Output,
    /// `flush_cond_out_cache`.
    ConditionalOutput,
}

/// One decoded command with typed parameters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Command {
    /// `init_perf_counters flags`.
    InitPerfCounters(PerfCounterMode),
    /// `start_perf_counters`.
    StartPerfCounters,
    /// `stop_perf_counters`.
    StopPerfCounters,
    /// `read_perf_counters address` (2 KiB-aligned, §2.2.1).
    ReadPerfCounters(BaseAddress),
    /// `set_cond_val value`.
    SetCondVal(u32),
    /// `set_domain i0 j0 i1 j1`.
    SetDomain(Domain),
    /// `start_program`.
    StartProgram,
    /// `wait_for_idle`.
    WaitForIdle,
    /// `set_inst_fmt base format`.
    SetInstFmt {
        /// Address of slot 0.
        base: BaseAddress,
        /// Format word (see `docs/ctm-device.md` §7 for how instructions use it).
        format: SurfaceFormat,
    },
    /// `set_inp_fmt input base format height`.
    SetInpFmt {
        /// The input.
        input: InputId,
        /// Base address.
        base: BaseAddress,
        /// Pitch, tiling, data format.
        format: SurfaceFormat,
        /// Rows.
        height: Height,
    },
    /// `set_out_fmt output base format height`.
    SetOutFmt {
        /// The output.
        output: OutputId,
        /// Base address.
        base: BaseAddress,
        /// Pitch, tiling, data format.
        format: SurfaceFormat,
        /// Rows.
        height: Height,
    },
    /// `set_cond_out_fmt base format height`.
    SetCondOutFmt {
        /// Base address.
        base: BaseAddress,
        /// Pitch, tiling, data format.
        format: SurfaceFormat,
        /// Rows.
        height: Height,
    },
    /// `set_constf_fmt`, `set_consti_fmt`, `set_constb_fmt` `base format`.
    SetConstFmt {
        /// Which constants.
        kind: ConstKind,
        /// Base address.
        base: BaseAddress,
        /// Pitch, tiling, data format.
        format: SurfaceFormat,
    },
    /// `inv_*_cache`.
    Invalidate(InvalidateTarget),
    /// `flush_*_cache`.
    Flush(FlushTarget),
    /// `set_out_mask mask`.
    SetOutMask(ChannelMask),
    /// `set_cond_out_mask mask`.
    SetCondOutMask(CondWrite),
    /// `set_cond_test condition`.
    SetCondTest(CondTest),
    /// `set_cond_loc loc`.
    SetCondLoc(CondLocation),
}

/// Why command-buffer words do not decode. Offsets are added by the
/// command processor ([`super::DeviceError`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum CommandDecodeError {
    /// The word is no command's opcode.
    #[error("unknown opcode word {word:#010x}")]
    UnknownOpcode {
        /// The word.
        word: u32,
    },
    /// The buffer ends inside the command's parameters.
    #[error("{opcode} needs {needed_words} parameter words, the buffer has {available_words}")]
    Truncated {
        /// The command.
        opcode: Opcode,
        /// Parameters it takes.
        needed_words: u32,
        /// Words left in the buffer after the opcode.
        available_words: u32,
    },
    /// A parameter has reserved bits set.
    #[error("{opcode} parameter {param}: reserved bits {bits:#010x} are set")]
    ReservedBits {
        /// The command.
        opcode: Opcode,
        /// Parameter index (0 = first word after the opcode).
        param: u32,
        /// The offending bits.
        bits: u32,
    },
    /// A format parameter names a reserved data format.
    #[error("{opcode} parameter {param}: data format code {code} is reserved")]
    ReservedDataFormat {
        /// The command.
        opcode: Opcode,
        /// Parameter index.
        param: u32,
        /// The code (5..7).
        code: u32,
    },
}

/// Reject `word & reserved`.
fn check(opcode: Opcode, param: u32, word: u32, reserved: u32) -> Result<u32, CommandDecodeError> {
    match word & reserved {
        0 => Ok(word),
        bits => Err(CommandDecodeError::ReservedBits {
            opcode,
            param,
            bits,
        }),
    }
}

fn format(opcode: Opcode, param: u32, word: u32) -> Result<SurfaceFormat, CommandDecodeError> {
    SurfaceFormat::decode(word).map_err(|e| match e {
        FormatError::ReservedBits { bits } => CommandDecodeError::ReservedBits {
            opcode,
            param,
            bits,
        },
        FormatError::ReservedDataFormat { code } => CommandDecodeError::ReservedDataFormat {
            opcode,
            param,
            code,
        },
    })
}

fn height(opcode: Opcode, param: u32, word: u32) -> Result<Height, CommandDecodeError> {
    let word = check(opcode, param, word, !Height::MAX)?;
    // Bits 12:0 after the check, so always in range.
    Height::new(word).ok_or(CommandDecodeError::ReservedBits {
        opcode,
        param,
        bits: word,
    })
}

impl Command {
    /// The command's opcode.
    pub const fn opcode(&self) -> Opcode {
        match self {
            Command::InitPerfCounters(_) => Opcode::InitPerfCounters,
            Command::StartPerfCounters => Opcode::StartPerfCounters,
            Command::StopPerfCounters => Opcode::StopPerfCounters,
            Command::ReadPerfCounters(_) => Opcode::ReadPerfCounters,
            Command::SetCondVal(_) => Opcode::SetCondVal,
            Command::SetDomain(_) => Opcode::SetDomain,
            Command::StartProgram => Opcode::StartProgram,
            Command::WaitForIdle => Opcode::WaitForIdle,
            Command::SetInstFmt { .. } => Opcode::SetInstFmt,
            Command::SetInpFmt { .. } => Opcode::SetInpFmt,
            Command::SetOutFmt { .. } => Opcode::SetOutFmt,
            Command::SetCondOutFmt { .. } => Opcode::SetCondOutFmt,
            Command::SetConstFmt { kind, .. } => match kind {
                ConstKind::Float => Opcode::SetConstfFmt,
                ConstKind::Int => Opcode::SetConstiFmt,
                ConstKind::Bool => Opcode::SetConstbFmt,
            },
            Command::Invalidate(target) => match target {
                InvalidateTarget::Instruction => Opcode::InvInstCache,
                InvalidateTarget::FloatConstant => Opcode::InvConstfCache,
                InvalidateTarget::IntConstant => Opcode::InvConstiCache,
                InvalidateTarget::BoolConstant => Opcode::InvConstbCache,
                InvalidateTarget::ConditionalOutput => Opcode::InvCondOutCache,
                InvalidateTarget::Input => Opcode::InvInpCache,
            },
            Command::Flush(target) => match target {
                FlushTarget::Output => Opcode::FlushOutCache,
                FlushTarget::ConditionalOutput => Opcode::FlushCondOutCache,
            },
            Command::SetOutMask(_) => Opcode::SetOutMask,
            Command::SetCondOutMask(_) => Opcode::SetCondOutMask,
            Command::SetCondTest(_) => Opcode::SetCondTest,
            Command::SetCondLoc(_) => Opcode::SetCondLoc,
        }
    }

    /// Decode the command at the start of `words` (opcode first); returns
    /// it and the number of words it occupies.
    ///
    /// # Errors
    /// [`CommandDecodeError`]: unknown opcode, too few words, reserved bits,
    /// reserved data format. An empty slice is `UnknownOpcode { word: 0 }`
    /// only if the caller passes one; the command processor never does.
    pub fn decode(words: &[u32]) -> Result<(Command, usize), CommandDecodeError> {
        let word = words.first().copied().unwrap_or(0);
        let opcode = Opcode::from_word(word).ok_or(CommandDecodeError::UnknownOpcode { word })?;
        let n = opcode.param_count();
        let available = words.len().saturating_sub(1);
        if available < n as usize {
            return Err(CommandDecodeError::Truncated {
                opcode,
                needed_words: n,
                available_words: available as u32,
            });
        }
        let p = &words[1..=n as usize];
        let reserved_only = |c: Command| check(opcode, 0, p[0], u32::MAX).map(|_| c);
        let command = match opcode {
            Opcode::InitPerfCounters => {
                let w = check(opcode, 0, p[0], !1)?;
                Command::InitPerfCounters(if w & 1 == 1 {
                    PerfCounterMode::Enabled
                } else {
                    PerfCounterMode::Disabled
                })
            }
            Opcode::StartPerfCounters => reserved_only(Command::StartPerfCounters)?,
            Opcode::StopPerfCounters => reserved_only(Command::StopPerfCounters)?,
            Opcode::ReadPerfCounters => Command::ReadPerfCounters(BaseAddress::from_param(p[0])),
            Opcode::SetCondVal => Command::SetCondVal(p[0]),
            Opcode::SetDomain => {
                let mut v = [0u32; 4];
                for (k, slot) in v.iter_mut().enumerate() {
                    *slot = check(opcode, k as u32, p[k], !Domain::MAX_INDEX)?;
                }
                // Each bound is 12 bits after the checks.
                Command::SetDomain(Domain::new(v[0], v[1], v[2], v[3]).unwrap_or_default())
            }
            Opcode::StartProgram => reserved_only(Command::StartProgram)?,
            Opcode::WaitForIdle => reserved_only(Command::WaitForIdle)?,
            Opcode::SetInstFmt => Command::SetInstFmt {
                base: BaseAddress::from_param(p[0]),
                format: format(opcode, 1, p[1])?,
            },
            Opcode::SetInpFmt => {
                let index = check(opcode, 0, p[0], !0xF)?;
                Command::SetInpFmt {
                    input: InputId::new(index as u8).unwrap_or_default(),
                    base: BaseAddress::from_param(p[1]),
                    format: format(opcode, 2, p[2])?,
                    height: height(opcode, 3, p[3])?,
                }
            }
            Opcode::SetOutFmt => {
                let index = check(opcode, 0, p[0], !0x3)?;
                Command::SetOutFmt {
                    output: OutputId::new(index as u8).unwrap_or_default(),
                    base: BaseAddress::from_param(p[1]),
                    format: format(opcode, 2, p[2])?,
                    height: height(opcode, 3, p[3])?,
                }
            }
            Opcode::SetCondOutFmt => Command::SetCondOutFmt {
                base: BaseAddress::from_param(p[0]),
                format: format(opcode, 1, p[1])?,
                height: height(opcode, 2, p[2])?,
            },
            Opcode::SetConstfFmt | Opcode::SetConstiFmt | Opcode::SetConstbFmt => {
                Command::SetConstFmt {
                    kind: match opcode {
                        Opcode::SetConstfFmt => ConstKind::Float,
                        Opcode::SetConstiFmt => ConstKind::Int,
                        _ => ConstKind::Bool,
                    },
                    base: BaseAddress::from_param(p[0]),
                    format: format(opcode, 1, p[1])?,
                }
            }
            Opcode::InvInstCache => {
                reserved_only(Command::Invalidate(InvalidateTarget::Instruction))?
            }
            Opcode::InvConstfCache => {
                reserved_only(Command::Invalidate(InvalidateTarget::FloatConstant))?
            }
            Opcode::InvConstiCache => {
                reserved_only(Command::Invalidate(InvalidateTarget::IntConstant))?
            }
            Opcode::InvConstbCache => {
                reserved_only(Command::Invalidate(InvalidateTarget::BoolConstant))?
            }
            Opcode::InvCondOutCache => {
                reserved_only(Command::Invalidate(InvalidateTarget::ConditionalOutput))?
            }
            Opcode::InvInpCache => reserved_only(Command::Invalidate(InvalidateTarget::Input))?,
            Opcode::FlushOutCache => reserved_only(Command::Flush(FlushTarget::Output))?,
            Opcode::FlushCondOutCache => {
                reserved_only(Command::Flush(FlushTarget::ConditionalOutput))?
            }
            Opcode::SetOutMask => {
                let w = check(opcode, 0, p[0], !0xF)?;
                Command::SetOutMask(ChannelMask::new(w as u8).unwrap_or_default())
            }
            Opcode::SetCondOutMask => {
                let w = check(opcode, 0, p[0], !1)?;
                Command::SetCondOutMask(if w == 1 {
                    CondWrite::Enabled
                } else {
                    CondWrite::Disabled
                })
            }
            Opcode::SetCondTest => {
                let w = check(opcode, 0, p[0], !7)?;
                Command::SetCondTest(CondTest::from_code(bits(w, 2, 0)))
            }
            Opcode::SetCondLoc => {
                let w = check(opcode, 0, p[0], !1)?;
                Command::SetCondLoc(CondLocation::from_code(w))
            }
        };
        Ok((command, 1 + n as usize))
    }

    /// The command's words: opcode, then parameters (reserved bits 0).
    pub fn encode(&self) -> Vec<u32> {
        let params: Vec<u32> = match *self {
            Command::InitPerfCounters(mode) => vec![u32::from(mode == PerfCounterMode::Enabled)],
            Command::ReadPerfCounters(address) => vec![address.get()],
            Command::SetCondVal(value) => vec![value],
            Command::SetDomain(domain) => {
                let (i0, j0, i1, j1) = domain.bounds();
                vec![i0, j0, i1, j1]
            }
            Command::SetInstFmt { base, format } => vec![base.get(), format.encode()],
            Command::SetInpFmt {
                input,
                base,
                format,
                height,
            } => vec![
                u32::from(input.get()),
                base.get(),
                format.encode(),
                height.get(),
            ],
            Command::SetOutFmt {
                output,
                base,
                format,
                height,
            } => vec![
                u32::from(output.get()),
                base.get(),
                format.encode(),
                height.get(),
            ],
            Command::SetCondOutFmt {
                base,
                format,
                height,
            } => vec![base.get(), format.encode(), height.get()],
            Command::SetConstFmt { base, format, .. } => vec![base.get(), format.encode()],
            Command::SetOutMask(mask) => vec![u32::from(mask.bits())],
            Command::SetCondOutMask(w) => vec![u32::from(w == CondWrite::Enabled)],
            Command::SetCondTest(t) => vec![t.code()],
            Command::SetCondLoc(l) => vec![l.code()],
            Command::StartPerfCounters
            | Command::StopPerfCounters
            | Command::StartProgram
            | Command::WaitForIdle
            | Command::Invalidate(_)
            | Command::Flush(_) => vec![0],
        };
        let mut words = Vec::with_capacity(1 + params.len());
        words.push(self.opcode().word());
        words.extend(params);
        words
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.opcode();
        let surface = |f: &mut fmt::Formatter<'_>, base: BaseAddress, fmt: SurfaceFormat| {
            write!(
                f,
                " base={base} pitch={} {} {}",
                fmt.pitch(),
                fmt.tiling.name(),
                fmt.format
            )
        };
        write!(f, "{op}")?;
        match *self {
            Command::InitPerfCounters(mode) => {
                write!(f, " {}", u32::from(mode == PerfCounterMode::Enabled))
            }
            Command::ReadPerfCounters(a) => write!(f, " {a}"),
            Command::SetCondVal(v) => write!(f, " {v:#010x} ({})", f32::from_bits(v)),
            Command::SetDomain(d) => write!(f, " {d}"),
            Command::SetInstFmt { base, format } | Command::SetConstFmt { base, format, .. } => {
                surface(f, base, format)
            }
            Command::SetInpFmt {
                input,
                base,
                format,
                height,
            } => {
                write!(f, " {}", input.get())?;
                surface(f, base, format)?;
                write!(f, " height={}", height.get())
            }
            Command::SetOutFmt {
                output,
                base,
                format,
                height,
            } => {
                write!(f, " {}", output.get())?;
                surface(f, base, format)?;
                write!(f, " height={}", height.get())
            }
            Command::SetCondOutFmt {
                base,
                format,
                height,
            } => {
                surface(f, base, format)?;
                write!(f, " height={}", height.get())
            }
            Command::SetOutMask(m) => write!(f, " {:#x}", m.bits()),
            Command::SetCondOutMask(w) => write!(f, " {}", u32::from(w == CondWrite::Enabled)),
            Command::SetCondTest(t) => write!(f, " {t}"),
            Command::SetCondLoc(l) => write!(
                f,
                " {}",
                match l {
                    CondLocation::Dpp => "dpp",
                    CondLocation::Pe => "pe",
                }
            ),
            Command::StartPerfCounters
            | Command::StopPerfCounters
            | Command::StartProgram
            | Command::WaitForIdle
            | Command::Invalidate(_)
            | Command::Flush(_) => Ok(()),
        }
    }
}

/// Decode a whole command buffer.
///
/// # Errors
/// The word offset of the first command that does not decode, with why.
pub fn decode_buffer(words: &[u32]) -> Result<Vec<(u32, Command)>, (u32, CommandDecodeError)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < words.len() {
        let (command, used) = Command::decode(&words[at..]).map_err(|e| (at as u32, e))?;
        out.push((at as u32, command));
        at += used;
    }
    Ok(out)
}

/// Encode a command sequence into buffer words.
pub fn encode_buffer(commands: &[Command]) -> Vec<u32> {
    commands.iter().flat_map(Command::encode).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_shape() {
        assert_eq!(Opcode::ALL.len(), 27);
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_word(op.word()), Some(op));
            assert!(
                op.param_count() >= 1,
                "{op}: §2.2 every command has a parameter"
            );
            // Bits 29:16 are count − 1, except for the two documented exceptions.
            let field = bits(op.word(), 29, 16);
            match op {
                Opcode::InitPerfCounters | Opcode::ReadPerfCounters => assert_eq!(field, 1),
                _ => assert_eq!(field, op.param_count() - 1, "{op}"),
            }
            assert_eq!(bits(op.word(), 31, 30), 3);
            assert_eq!(bits(op.word(), 7, 0), 0);
        }
    }
}

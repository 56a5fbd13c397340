//! Program-level registers (`x1k-encoding.md` §10, CTM guide §4.1.4
//! `dpp_proginfo`), typed, with encode/decode through the [`super::fields`]
//! table.
//!
//! Decoding is strict like instruction decoding: bits outside the documented
//! fields, and `US_FC_CTRL.TEST_EN` ("no effect; write 0"), are errors.

use super::fields::{
    FgDepthSrc, Field, FieldInfo, UsCodeAddr, UsCodeOffset, UsCodeRange, UsConfig, UsFcBoolConst,
    UsFcCtrl, UsFcIntConst, UsPixsize, Word,
};
use super::operand::{BoolConstId, IntConstId, SlotIndex, TempReg};

/// Why a register value does not decode.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RegisterDecodeError {
    /// Bits outside every documented field are set.
    #[error("{register}: reserved bits {bits:#010x} are set")]
    ReservedBits {
        /// The register's manual name.
        register: &'static str,
        /// The offending bits.
        bits: u32,
    },
    /// A field that must be written as 0 is not.
    #[error("{field} = {value:#x} must be 0")]
    FieldMustBeZero {
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
    },
}

/// A program-level register with a typed value.
pub trait ProgramRegister: Sized {
    /// The register's manual name.
    const NAME: &'static str;
    /// MMIO byte address (for `US_FC_INT_CONST` the address of constant 0).
    const ADDRESS: u32;

    /// The raw 32-bit value.
    fn encode(&self) -> u32;

    /// The typed value of a raw register.
    ///
    /// # Errors
    /// [`RegisterDecodeError`] for stray bits.
    fn decode(raw: u32) -> Result<Self, RegisterDecodeError>;
}

fn check_reserved(
    register: &'static str,
    raw: u32,
    reserved: u32,
) -> Result<(), RegisterDecodeError> {
    match raw & reserved {
        0 => Ok(()),
        bits => Err(RegisterDecodeError::ReservedBits { register, bits }),
    }
}

fn slot<R: Word>(raw: u32, field: Field<R>) -> SlotIndex {
    SlotIndex::from_field(field.info().extract(raw))
}

/// How output writes of a program are performed (`US_CONFIG` bit 0, CTM proginfo).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum OutputMode {
    /// Cached render-target writes, sent at termination (CTM §3.3.8).
    #[default]
    Cached,
    /// Uncached (UMRT) writes, sent immediately.
    Uncached,
}

/// Multiplier semantics (`US_CONFIG.ZERO_TIMES_ANYTHING_EQUALS_ZERO`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum MultiplyMode {
    /// IEEE: 0·Inf = NaN, 0·NaN = NaN (what CTM §3.6 documents).
    #[default]
    Ieee,
    /// Legacy SM1: 0·anything = 0.
    ZeroTimesAnythingIsZero,
}

/// `US_CONFIG` (0x4600).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsConfigReg {
    /// Bit 0 (CTM only, `x1k-encoding.md` §14 item 3).
    pub output_mode: OutputMode,
    /// Bit 1.
    pub multiply_mode: MultiplyMode,
}

impl ProgramRegister for UsConfigReg {
    const NAME: &'static str = UsConfig::NAME;
    const ADDRESS: u32 = 0x4600;

    fn encode(&self) -> u32 {
        UsConfig::default()
            .with(
                UsConfig::UNCACHED_OUTPUT,
                u32::from(self.output_mode == OutputMode::Uncached),
            )
            .with(
                UsConfig::ZERO_TIMES_ANYTHING_EQUALS_ZERO,
                u32::from(self.multiply_mode == MultiplyMode::ZeroTimesAnythingIsZero),
            )
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsConfig::RESERVED_MASK)?;
        let r = UsConfig(raw);
        Ok(UsConfigReg {
            output_mode: if r.get(UsConfig::UNCACHED_OUTPUT) != 0 {
                OutputMode::Uncached
            } else {
                OutputMode::Cached
            },
            multiply_mode: if r.get(UsConfig::ZERO_TIMES_ANYTHING_EQUALS_ZERO) != 0 {
                MultiplyMode::ZeroTimesAnythingIsZero
            } else {
                MultiplyMode::Ieee
            },
        })
    }
}

/// `US_PIXSIZE` (0x4604): the largest temporary index used (CTM proginfo
/// "largest register used"; Mesa writes the highest index, at least 1 —
/// `x1k-encoding.md` §14 item 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsPixsizeReg {
    /// `PIX_SIZE`.
    pub max_temp: TempReg,
}

impl ProgramRegister for UsPixsizeReg {
    const NAME: &'static str = UsPixsize::NAME;
    const ADDRESS: u32 = 0x4604;

    fn encode(&self) -> u32 {
        UsPixsize::default()
            .with(UsPixsize::PIX_SIZE, self.max_temp.get())
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsPixsize::RESERVED_MASK)?;
        Ok(UsPixsizeReg {
            max_temp: TempReg::from_field(UsPixsize(raw).get(UsPixsize::PIX_SIZE)),
        })
    }
}

/// Flow-control mode (`US_FC_CTRL.FULL_FC_EN`, CTM §3.5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum FcMode {
    /// Partial: 2× contexts, no loops/calls, branch nesting ≤ 4.
    #[default]
    Partial,
    /// Full SM3 flow control.
    Full,
}

/// `US_FC_CTRL` (0x4624).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsFcCtrlReg {
    /// `FULL_FC_EN`.
    pub mode: FcMode,
}

impl ProgramRegister for UsFcCtrlReg {
    const NAME: &'static str = UsFcCtrl::NAME;
    const ADDRESS: u32 = 0x4624;

    fn encode(&self) -> u32 {
        UsFcCtrl::default()
            .with(UsFcCtrl::FULL_FC_EN, u32::from(self.mode == FcMode::Full))
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsFcCtrl::RESERVED_MASK)?;
        let r = UsFcCtrl(raw);
        let test = r.get(UsFcCtrl::TEST_EN);
        if test != 0 {
            return Err(RegisterDecodeError::FieldMustBeZero {
                field: UsFcCtrl::TEST_EN.info(),
                value: test,
            });
        }
        Ok(UsFcCtrlReg {
            mode: if r.get(UsFcCtrl::FULL_FC_EN) != 0 {
                FcMode::Full
            } else {
                FcMode::Partial
            },
        })
    }
}

/// `US_CODE_ADDR` (0x4630): first and last slot executed, relative to
/// `US_CODE_OFFSET`. The CTM proginfo describes it as "lower 16 bits /
/// upper 16 bits"; the hardware fields are 8:0 and 24:16, which is the same
/// encoding for slots 0..=511.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsCodeAddrReg {
    /// `START_ADDR`.
    pub start: SlotIndex,
    /// `END_ADDR` (execution always ends after it).
    pub end: SlotIndex,
}

impl ProgramRegister for UsCodeAddrReg {
    const NAME: &'static str = UsCodeAddr::NAME;
    const ADDRESS: u32 = 0x4630;

    fn encode(&self) -> u32 {
        UsCodeAddr::default()
            .with(UsCodeAddr::START_ADDR, self.start.get())
            .with(UsCodeAddr::END_ADDR, self.end.get())
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsCodeAddr::RESERVED_MASK)?;
        Ok(UsCodeAddrReg {
            start: slot(raw, UsCodeAddr::START_ADDR),
            end: slot(raw, UsCodeAddr::END_ADDR),
        })
    }
}

/// `US_CODE_RANGE` (0x4634).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsCodeRangeReg {
    /// `CODE_ADDR`: absolute start of the code window.
    pub code_addr: SlotIndex,
    /// `CODE_SIZE`: window size − 1 (CTM proginfo: INST_CNT − 1).
    pub code_size_minus_one: SlotIndex,
}

impl ProgramRegister for UsCodeRangeReg {
    const NAME: &'static str = UsCodeRange::NAME;
    const ADDRESS: u32 = 0x4634;

    fn encode(&self) -> u32 {
        UsCodeRange::default()
            .with(UsCodeRange::CODE_ADDR, self.code_addr.get())
            .with(UsCodeRange::CODE_SIZE, self.code_size_minus_one.get())
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsCodeRange::RESERVED_MASK)?;
        Ok(UsCodeRangeReg {
            code_addr: slot(raw, UsCodeRange::CODE_ADDR),
            code_size_minus_one: slot(raw, UsCodeRange::CODE_SIZE),
        })
    }
}

/// `US_CODE_OFFSET` (0x4638).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsCodeOffsetReg {
    /// `OFFSET_ADDR`: added to START/END and to relative jump targets.
    pub offset: SlotIndex,
}

impl ProgramRegister for UsCodeOffsetReg {
    const NAME: &'static str = UsCodeOffset::NAME;
    const ADDRESS: u32 = 0x4638;

    fn encode(&self) -> u32 {
        UsCodeOffset::default()
            .with(UsCodeOffset::OFFSET_ADDR, self.offset.get())
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsCodeOffset::RESERVED_MASK)?;
        Ok(UsCodeOffsetReg {
            offset: slot(raw, UsCodeOffset::OFFSET_ADDR),
        })
    }
}

/// One `US_FC_INT_CONST_i` (0x4C00 + 4i): loop count, initial aL, aL step
/// (CTM §3.5.3 `INT_ADDR`: red = count, green = init, blue = increment).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsFcIntConstReg {
    /// `KR`: iteration count 0..=255 (0: LOOP/REP jump straight out).
    pub count: u8,
    /// `KG`: initial aL 0..=255.
    pub init: u8,
    /// `KB`: aL increment. AMD: "signed 7-bit integer in [-128, 127]" for an
    /// 8-bit field; read as 8-bit two's complement (§14 item 7).
    pub step: i8,
}

impl UsFcIntConstReg {
    /// MMIO address of `US_FC_INT_CONST_id`.
    pub const fn address_of(id: IntConstId) -> u32 {
        Self::ADDRESS + 4 * id.get()
    }
}

impl ProgramRegister for UsFcIntConstReg {
    const NAME: &'static str = UsFcIntConst::NAME;
    const ADDRESS: u32 = 0x4C00;

    fn encode(&self) -> u32 {
        UsFcIntConst::default()
            .with(UsFcIntConst::KR, u32::from(self.count))
            .with(UsFcIntConst::KG, u32::from(self.init))
            .with(UsFcIntConst::KB, u32::from(self.step as u8))
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, UsFcIntConst::RESERVED_MASK)?;
        let r = UsFcIntConst(raw);
        Ok(UsFcIntConstReg {
            count: r.get(UsFcIntConst::KR) as u8,
            init: r.get(UsFcIntConst::KG) as u8,
            step: r.get(UsFcIntConst::KB) as u8 as i8,
        })
    }
}

/// `US_FC_BOOL_CONST` (0x4620): boolean constants b0..b31, bit N = bN
/// (`x1k-encoding.md` §14 item 12, inference).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct UsFcBoolConstReg {
    /// `KBOOL`.
    pub bits: u32,
}

impl UsFcBoolConstReg {
    /// Boolean constant `id`.
    pub const fn get(&self, id: BoolConstId) -> bool {
        self.bits & (1 << id.get()) != 0
    }

    /// Set boolean constant `id`.
    pub fn set(&mut self, id: BoolConstId, value: bool) {
        let mask = 1 << id.get();
        if value {
            self.bits |= mask
        } else {
            self.bits &= !mask
        }
    }
}

impl ProgramRegister for UsFcBoolConstReg {
    const NAME: &'static str = UsFcBoolConst::NAME;
    const ADDRESS: u32 = 0x4620;

    fn encode(&self) -> u32 {
        UsFcBoolConst::default()
            .with(UsFcBoolConst::KBOOL, self.bits)
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        Ok(UsFcBoolConstReg {
            bits: UsFcBoolConst(raw).get(UsFcBoolConst::KBOOL),
        })
    }
}

/// `FG_DEPTH_SRC` (0x4BD8): CTM proginfo "a 1 in bit 0 specifies
/// conditional value is exported" (the shader's `W_OMASK` output).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct FgDepthSrcReg {
    /// Bit 0: the W / conditional value comes from the shader.
    pub shader_exports_w: bool,
}

impl ProgramRegister for FgDepthSrcReg {
    const NAME: &'static str = FgDepthSrc::NAME;
    const ADDRESS: u32 = 0x4BD8;

    fn encode(&self) -> u32 {
        FgDepthSrc::default()
            .with(FgDepthSrc::SHADER, u32::from(self.shader_exports_w))
            .0
    }

    fn decode(raw: u32) -> Result<Self, RegisterDecodeError> {
        check_reserved(Self::NAME, raw, FgDepthSrc::RESERVED_MASK)?;
        Ok(FgDepthSrcReg {
            shader_exports_w: FgDepthSrc(raw).get(FgDepthSrc::SHADER) != 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<R: ProgramRegister + PartialEq + std::fmt::Debug>(value: R) {
        assert_eq!(R::decode(value.encode()), Ok(value));
    }

    #[test]
    fn registers_round_trip() {
        round_trip(UsConfigReg {
            output_mode: OutputMode::Uncached,
            multiply_mode: MultiplyMode::Ieee,
        });
        round_trip(UsPixsizeReg {
            max_temp: TempReg::new(127).unwrap(),
        });
        round_trip(UsFcCtrlReg { mode: FcMode::Full });
        round_trip(UsCodeAddrReg {
            start: SlotIndex::new(0).unwrap(),
            end: SlotIndex::new(511).unwrap(),
        });
        round_trip(UsCodeRangeReg {
            code_addr: SlotIndex::new(3).unwrap(),
            code_size_minus_one: SlotIndex::new(9).unwrap(),
        });
        round_trip(UsCodeOffsetReg {
            offset: SlotIndex::new(17).unwrap(),
        });
        round_trip(UsFcIntConstReg {
            count: 255,
            init: 3,
            step: -1,
        });
        round_trip(UsFcBoolConstReg { bits: 0xDEAD_BEEF });
        round_trip(FgDepthSrcReg {
            shader_exports_w: true,
        });
    }

    #[test]
    fn known_values() {
        assert_eq!(UsFcCtrlReg { mode: FcMode::Full }.encode(), 0x8000_0000);
        assert_eq!(
            UsConfigReg {
                output_mode: OutputMode::Uncached,
                ..Default::default()
            }
            .encode(),
            1
        );
        // §10.1: US_CODE_ADDR end = INST_CNT − 1 in bits 24:16.
        let code_addr = UsCodeAddrReg {
            start: SlotIndex::new(0).unwrap(),
            end: SlotIndex::new(1).unwrap(),
        };
        assert_eq!(code_addr.encode(), 0x0001_0000);
        assert_eq!(
            UsFcIntConstReg {
                count: 4,
                init: 0,
                step: -2
            }
            .encode(),
            0x00FE_0004
        );
        assert_eq!(UsFcIntConstReg::decode(0x00FE_0004).unwrap().step, -2);
        assert_eq!(
            UsFcIntConstReg::address_of(IntConstId::new(31).unwrap()),
            0x4C7C
        );
    }

    #[test]
    fn strict_decoding() {
        assert!(UsFcCtrlReg::decode(0x4000_0000).is_err());
        assert!(UsCodeAddrReg::decode(0x0000_0200).is_err());
        assert!(UsPixsizeReg::decode(0x80).is_err());
        assert!(UsFcIntConstReg::decode(0x0100_0000).is_err());
        assert!(UsConfigReg::decode(4).is_err());
        let mut b = UsFcBoolConstReg::default();
        b.set(BoolConstId::new(5).unwrap(), true);
        assert!(b.get(BoolConstId::new(5).unwrap()));
        assert_eq!(b.bits, 1 << 5);
    }
}

//! The parameter bindings of a compiled program (`docs/abi-x1k.md` §3):
//! what the loader must put in which input, output and constant. Stored as
//! JSON in the ELF's `"ctm"` note.
//!
//! This module depends only on `serde`, so that the simulator and driver
//! can read the bindings without the code generator.

use serde::{Deserialize, Serialize};

/// Everything a loader needs besides the instructions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bindings {
    /// The kernel's name.
    pub kernel: String,
    /// `In<T>` parameters and their CTM inputs.
    pub inputs: Vec<InputBinding>,
    /// `Out<T>` parameters and their CTM outputs.
    pub outputs: Vec<OutputBinding>,
    /// The `Scatter<f32>` parameter, if any (written through output 0).
    pub scatter: Option<String>,
    /// Value, `mat4` and array uniforms (not `bool`).
    pub uniforms: Vec<UniformBinding>,
    /// `bool` uniforms.
    pub bool_uniforms: Vec<BoolUniformBinding>,
    /// The float constant holding (width, height, 1/width, 1/height)
    /// ([`domain_constant_value`]), if read.
    pub domain_constant: Option<u8>,
    /// Float constants with fixed values (literals the inline format
    /// cannot encode).
    pub literals: Vec<LiteralBinding>,
    /// Integer (loop) constants.
    pub int_constants: Vec<IntConstBinding>,
    /// A reduction pass program without boundary guards: the loader pads
    /// the input to whole blocks of the pass with this value per channel
    /// (f32 bit patterns), so that reads past the edge return the
    /// reduction's identity (`docs/abi-x1k.md` §4). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_padding_bits: Option<[u32; 4]>,
    /// Uniforms the code never reads (a parameter the kernel ignores, or
    /// one the optimiser removed): named so that a launch accepts a value
    /// for them, as the source run and the r700 do, but bound to no
    /// constant (the image rules refuse a binding the code does not read,
    /// `docs/abi-x1k.md` §3). Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread_uniforms: Vec<UnreadUniform>,
    /// Launch constants (`docs/abi-x1k.md`, "Launch constants"): hidden
    /// uniforms, each also bound above under its `launch.N` name, whose
    /// values the loader computes at every launch from the user's uniforms.
    /// Absent when empty, so files without it still load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launch_constants: Vec<LaunchConstantBinding>,
}

/// A launch constant ([`Bindings::launch_constants`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchConstantBinding {
    /// The hidden uniform's parameter name (`launch.N`).
    pub param: String,
    /// Its type: `f32`, `vec2`, `vec3` or `vec4`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The expression computing it, in the text form of
    /// `ctm_ir::launch::LaunchExpr` (this module stays serde-only).
    pub expr: String,
}

/// A uniform the code never reads ([`Bindings::unread_uniforms`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnreadUniform {
    /// The parameter's name.
    pub param: String,
    /// Its type as written.
    #[serde(rename = "type")]
    pub ty: String,
}

/// An input stream's binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputBinding {
    /// The parameter's name.
    pub param: String,
    /// CTM input index (= `TEX_ID`).
    pub input: u8,
    /// Element type as written: `f32`, `vec2`, `vec4`, `unorm8x4`, `u16`.
    pub format: String,
}

/// An output stream's binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputBinding {
    /// The parameter's name.
    pub param: String,
    /// CTM output index (render target A + index).
    pub output: u8,
    /// Element type: `f32`, `vec2`, `vec4`.
    pub format: String,
}

/// A value, `mat4` or array uniform's binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformBinding {
    /// The parameter's name.
    pub param: String,
    /// Its type as written (`f32`, `vec3`, `i32`, `mat4`, `[vec4; 8]`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    /// The first float constant it occupies.
    pub float_constant: u8,
}

/// A `bool` uniform's binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoolUniformBinding {
    /// The parameter's name.
    pub param: String,
    /// The boolean constant holding it.
    pub bool_constant: u8,
    /// The float constant holding 1.0 or 0.0 in every channel, if the
    /// program reads the bool as a value.
    pub float_constant: Option<u8>,
}

/// A float constant with a fixed value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiteralBinding {
    /// The constant's index.
    pub float_constant: u8,
    /// Its four channels, stored in JSON as their IEEE bit patterns so that
    /// NaN payloads, infinities and `-0.0` survive.
    #[serde(with = "f32_bits")]
    pub value: [f32; 4],
}

/// (De)serialises `[f32; 4]` as `[u32; 4]` bit patterns (JSON has no NaN
/// or infinity).
mod f32_bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[f32; 4], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| x.to_bits()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f32; 4], D::Error> {
        let bits = <[u32; 4]>::deserialize(d)?;
        Ok(bits.map(f32::from_bits))
    }
}

/// Where a loop count or start comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntSource {
    /// A constant.
    Const(i32),
    /// The value of an `i32` uniform.
    Uniform(String),
    /// `end - start` of two sources (each a constant or a uniform),
    /// clamped to 0..=255.
    UniformRange(Box<IntSource>, Box<IntSource>),
}

/// An integer constant's recipe: `US_FC_INT_CONST` = count | init << 8 |
/// step << 16.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntConstBinding {
    /// The integer constant's index.
    pub int_constant: u8,
    /// Iteration count (0..=255).
    pub count: IntSource,
    /// Initial aL, packed into 8 bits (the driver accepts -128..=255 and
    /// stores the low byte; REP loops never read it).
    pub init: IntSource,
    /// aL step (-128..=127).
    pub step: i32,
}

impl Bindings {
    /// The JSON text stored in the `"ctm"` note.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads the JSON of a `"ctm"` note.
    ///
    /// # Errors
    /// A message when the text is not valid bindings JSON.
    pub fn from_json(text: &str) -> Result<Bindings, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

/// The `domain()` constant of a `width`×`height` domain
/// (`docs/abi-x1k.md` §3): (width, height, 1/width, 1/height), the
/// reciprocals as correctly rounded f32 divisions. The code generator
/// divides by a lane of `domain()` by multiplying with its reciprocal
/// lane; a program compiled before the reciprocals were added reads only
/// lanes r and g, so it keeps working.
pub fn domain_constant_value(width: usize, height: usize) -> [f32; 4] {
    let (w, h) = (width as f32, height as f32);
    [w, h, 1.0 / w, 1.0 / h]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_constant_holds_the_reciprocals() {
        assert_eq!(
            domain_constant_value(640, 480),
            [640.0, 480.0, 1.0 / 640.0, 1.0 / 480.0]
        );
        assert_eq!(
            domain_constant_value(1, 4096),
            [1.0, 4096.0, 1.0, 0.000_244_140_63]
        );
        // Correctly rounded: 1/3 is 0x3EAAAAAB.
        assert_eq!(domain_constant_value(3, 3)[2].to_bits(), 0x3EAA_AAAB);
    }

    /// `x · RN(1/w)` against the reference's `RN(x / w)` for every index
    /// `x` of every width up to 4096: they differ in 2,409,635 of the
    /// 8,390,656 pairs, always by one ulp, never for a power-of-two width
    /// (`docs/abi-x1k.md` §3).
    #[test]
    fn index_over_domain_is_within_one_ulp() {
        let (mut differ, mut pow2_differ) = (0u64, 0u64);
        for w in 1usize..=4096 {
            let r = domain_constant_value(w, 1)[2];
            for x in 0..w {
                let (q, p) = (x as f32 / w as f32, x as f32 * r);
                let ulps = (i64::from(q.to_bits()) - i64::from(p.to_bits())).abs();
                assert!(ulps <= 1, "{x}/{w}: {q} vs {p}");
                if ulps == 1 {
                    differ += 1;
                    pow2_differ += u64::from(w.is_power_of_two());
                }
            }
        }
        assert_eq!((differ, pow2_differ), (2_409_635, 0));
    }

    #[test]
    fn bindings_round_trip_through_json() {
        let b = Bindings {
            kernel: "k".into(),
            inputs: vec![InputBinding {
                param: "x".into(),
                input: 0,
                format: "f32".into(),
            }],
            int_constants: vec![IntConstBinding {
                int_constant: 0,
                count: IntSource::UniformRange(
                    Box::new(IntSource::Const(0)),
                    Box::new(IntSource::Uniform("n".into())),
                ),
                init: IntSource::Const(0),
                step: 1,
            }],
            ..Bindings::default()
        };
        let text = b.to_json();
        assert!(text.contains("\"uniform_range\""), "{text}");
        assert_eq!(Bindings::from_json(&text), Ok(b));
        assert!(Bindings::from_json("{").is_err());
    }

    #[test]
    fn literal_values_keep_every_bit() {
        let b = Bindings {
            literals: vec![LiteralBinding {
                float_constant: 3,
                value: [f32::NAN, f32::NEG_INFINITY, -0.0, 1.5],
            }],
            ..Bindings::default()
        };
        let back = Bindings::from_json(&b.to_json()).expect("round trip");
        let bits = |v: [f32; 4]| v.map(f32::to_bits);
        assert_eq!(bits(back.literals[0].value), bits(b.literals[0].value));
    }
}

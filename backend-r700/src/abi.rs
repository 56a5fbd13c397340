//! The parameter bindings of a compiled R700 program (`docs/abi-r700.md`
//! §3): which texture resource, export, memory-export buffer and constant
//! buffer element the loader must bind to each kernel parameter. Stored as
//! JSON in the ELF's `"ctm"` note.
//!
//! This module depends only on `serde`, so that the simulator and driver
//! can read the bindings without the code generator.

use serde::{Deserialize, Serialize};

/// Everything a loader needs besides the instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bindings {
    /// The kernel's name.
    pub kernel: String,
    /// `In<T>` parameters: texture resource (= sampler) `k`.
    pub inputs: Vec<InputBinding>,
    /// `Out<T>` parameters: pixel export `ARRAY_BASE`.
    pub outputs: Vec<OutputBinding>,
    /// `Scatter<f32>` parameters: regions of the one `MEM_EXPORT` buffer.
    pub scatters: Vec<ScatterBinding>,
    /// Uniforms (also `bool`), each at consecutive elements of constant
    /// buffer 0.
    pub uniforms: Vec<UniformBinding>,
    /// The cb0 element holding `(W, H, 0, 0)` as floats, if the program
    /// reads it (`domain()`, scatter addressing).
    pub domain_element: Option<u32>,
    /// Elements of cb0 the program reads, one past the highest (the size of
    /// constant buffer 0 the loader must provide, in 16-byte elements).
    pub cb0_elements: u32,
    /// A reduction pass program without boundary guards: the loader pads
    /// the input to whole blocks of the pass with this value per channel
    /// (f32 bit patterns), so that reads past the edge return the
    /// reduction's identity (`docs/abi-r700.md` §3.5). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_padding_bits: Option<[u32; 4]>,
    /// Launch constants (`docs/abi-r700.md`, "Launch constants"): hidden
    /// uniforms, each also bound above under its `launch.N` name, whose
    /// values the loader computes at every launch from the user's uniforms.
    /// Absent when empty, so files without it still load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launch_constants: Vec<LaunchConstantBinding>,
}

/// A launch constant ([`Bindings::launch_constants`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// An input stream's binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputBinding {
    /// The parameter's name.
    pub param: String,
    /// Texture resource and sampler index (0..16).
    pub resource: u32,
    /// Element type as written: `f32`, `vec2`, `vec4`, `unorm8x4`, `u16`.
    pub format: String,
}

/// An output stream's binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputBinding {
    /// The parameter's name.
    pub param: String,
    /// The pixel export's `ARRAY_BASE` (0..8).
    pub export: u32,
    /// Element type: `f32`, `vec2`, `vec4` (channels beyond it are 0).
    pub format: String,
}

/// A `Scatter<f32>` parameter's binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScatterBinding {
    /// The parameter's name.
    pub param: String,
    /// Its region of the `MEM_EXPORT` (scatter) buffer: element `(x, y)`
    /// is dword `slot·W·H + y·W + x`. Writes to positions outside the
    /// domain go to dword `scatters.len()·W·H`, a discard dword the loader
    /// allocates and ignores (`docs/abi-r700.md` §3.4).
    pub slot: u32,
}

/// A uniform's binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UniformBinding {
    /// The parameter's name.
    pub param: String,
    /// Its type as written (`f32`, `vec3`, `i32`, `bool`, `mat4`, `[vec4; 8]`).
    #[serde(rename = "type")]
    pub ty: String,
    /// The first cb0 element it occupies: scalars and vectors one (lanes
    /// x.. in order), `mat4` four (column k at `element + k`), arrays one
    /// per array element. `i32` as 32-bit two's complement, `bool` as 1 or
    /// 0 (an integer), floats as IEEE binary32.
    pub element: u32,
    /// How many elements it occupies.
    pub elements: u32,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_round_trip_through_json() {
        let b = Bindings {
            kernel: "k".into(),
            inputs: vec![InputBinding {
                param: "x".into(),
                resource: 3,
                format: "unorm8x4".into(),
            }],
            outputs: vec![OutputBinding {
                param: "o".into(),
                export: 1,
                format: "vec2".into(),
            }],
            scatters: vec![ScatterBinding {
                param: "s".into(),
                slot: 0,
            }],
            uniforms: vec![UniformBinding {
                param: "m".into(),
                ty: "mat4".into(),
                element: 2,
                elements: 4,
            }],
            domain_element: Some(6),
            cb0_elements: 7,
            input_padding_bits: Some([0, 0x3f80_0000, 0, 0]),
            launch_constants: vec![LaunchConstantBinding {
                param: "launch.0".into(),
                ty: "f32".into(),
                expr: "uniform a; sqrt %0".into(),
            }],
        };
        let text = b.to_json();
        assert!(text.contains("\"type\":\"mat4\""), "{text}");
        assert!(
            text.contains("\"launch_constants\":[{\"param\":\"launch.0\",\"type\":\"f32\""),
            "{text}"
        );
        assert_eq!(Bindings::from_json(&text), Ok(b.clone()));
        assert!(Bindings::from_json("{").is_err());
        // Without launch constants the key is absent, and notes without it
        // (older files) read as an empty list.
        let mut old = b;
        old.launch_constants.clear();
        let text = old.to_json();
        assert!(!text.contains("launch_constants"), "{text}");
        assert_eq!(Bindings::from_json(&text), Ok(old));
    }
}

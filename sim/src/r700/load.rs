//! The loader and output rendering: launches from a CAL ELF image per
//! `docs/abi-r700.md` (position (i, j, 0, 0) in R0, NUM_GPRS and
//! STACK_SIZE from the program information, constant buffer 0 sized by the
//! bindings with the domain element filled, the scatter buffer of
//! S·W·H + 1 dwords), pixel-shader and raw launches (spec §10: N elements,
//! initial registers incl. `seq`, cb0 constants, also visible as the
//! constant file), and the raw-run JSON
//! `{"outputs": [{"kind", "index", "values"}]}`.

use ctm_backend_r700::elf::{self, ElfError, ElfImage};
use ctm_backend_r700::isa::{Gpr, Program};
use serde_json::{Value, json};

use super::{ExportKind, Launch, RunResult, TexFormat, Texture};

impl TexFormat {
    /// The resource format of an input stream type as the bindings spell
    /// it (`docs/abi-r700.md` §3.2).
    pub fn from_binding(format: &str) -> Option<TexFormat> {
        Some(match format {
            "f32" => TexFormat::R32Float,
            "vec2" => TexFormat::Rg32Float,
            "vec4" => TexFormat::Rgba32Float,
            "unorm8x4" => TexFormat::Rgba8Unorm,
            "u16" => TexFormat::R16Uint,
            _ => return None,
        })
    }
}

impl Texture {
    /// A texture of 32-bit words (the float formats: 1, 2 or 4 words per
    /// texel, row-major).
    pub fn from_words(width: u32, height: u32, format: TexFormat, words: &[u32]) -> Texture {
        Texture {
            width,
            height,
            format,
            data: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        }
    }
}

/// Read a CAL ELF image (`docs/abi-r700.md` §1).
///
/// # Errors
/// The reader's [`ElfError`] for anything that is not such an image.
pub fn read_elf(bytes: &[u8]) -> Result<ElfImage, ElfError> {
    elf::read_image(bytes)
}

impl Launch {
    /// A launch of an image over `width × height` as the ABI sets it up:
    /// position in R0, NUM_GPRS and STACK_SIZE from the program
    /// information, cb0 of the bindings' size with `(W, H, 0, 0)` in the
    /// domain element, and a zeroed scatter buffer of S·W·H + 1 dwords.
    /// Inputs (textures) and uniform values are the caller's to bind
    /// ([`Launch::textures`], [`Launch::set_uniform`]).
    pub fn from_image(image: &ElfImage, width: u32, height: u32) -> Launch {
        let res = image.resources();
        let mut launch = Launch::pixel_shader(image.program.clone(), width, height);
        // An image without SQ_PGM_RESOURCES_PS (a foreign one) gets the
        // config's defaults: every GPR writable, the default stack size.
        if image.register(elf::reg::SQ_PGM_RESOURCES_PS).is_some() {
            launch.num_gprs = (res.num_gprs > 0).then_some(res.num_gprs);
            launch.stack_size = Some(res.stack_size);
        }
        if image.register(elf::reg::SQ_GPR_RESOURCE_MGMT_1).is_some() {
            launch.clause_temps = Some(res.clause_temps);
        }
        if let Some(b) = &image.bindings {
            launch.const_buffers = vec![vec![[0; 4]; b.cb0_elements as usize]];
            if let Some(d) = b.domain_element {
                launch.set_uniform(
                    d,
                    [(width as f32).to_bits(), (height as f32).to_bits(), 0, 0],
                );
            }
            let cells = u64::from(width) * u64::from(height);
            let dwords = (b.scatters.len() as u64 * cells + 1).min(1 << 30);
            if !b.scatters.is_empty() {
                launch.memory = vec![0; dwords as usize];
            }
        }
        launch
    }
}

impl Launch {
    /// Bind an input stream per its binding (`docs/abi-r700.md` §3.2):
    /// texture resource `binding.resource` in the binding's format, texels
    /// row-major (`width·height` of them, little endian). False if the
    /// format is unknown or the data has the wrong size.
    pub fn bind_input(
        &mut self,
        binding: &ctm_backend_r700::abi::InputBinding,
        width: u32,
        height: u32,
        data: Vec<u8>,
    ) -> bool {
        let Some(format) = TexFormat::from_binding(&binding.format) else {
            return false;
        };
        let Ok(resource) = u8::try_from(binding.resource) else {
            return false;
        };
        if data.len() as u64 != u64::from(width) * u64::from(height) * format.bytes() as u64 {
            return false;
        }
        self.textures.insert(
            resource,
            Texture {
                width,
                height,
                format,
                data,
            },
        );
        true
    }
}

impl RunResult {
    /// An output stream per its binding: pixel export `binding.export`,
    /// one `[f32; 4]` per element (zeros where nothing was exported).
    pub fn output(&self, binding: &ctm_backend_r700::abi::OutputBinding) -> Vec<[f32; 4]> {
        self.export_f32(ExportKind::Pixel, binding.export)
    }

    /// Scatter parameter `slot`'s region of the scatter buffer
    /// (`docs/abi-r700.md` §3.4): W·H dwords.
    pub fn scatter_region(&self, slot: u32, width: u32, height: u32) -> Vec<u32> {
        let cells = width as usize * height as usize;
        let start = slot as usize * cells;
        (start..start + cells)
            .map(|i| self.memory.get(i).copied().unwrap_or(0))
            .collect()
    }
}

/// An initial register value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegInit {
    /// The same four dwords in every element.
    Const([u32; 4]),
    /// `seq`: (k, 0, 0, 0) with k the element number as a float.
    Seq,
    /// One value per element (elements past the end get zeros).
    PerElement(Vec<[u32; 4]>),
}

impl RegInit {
    /// The value for element `e`.
    pub fn value(&self, e: u64) -> [u32; 4] {
        match self {
            RegInit::Const(v) => *v,
            RegInit::Seq => [(e as f32).to_bits(), 0, 0, 0],
            RegInit::PerElement(v) => v.get(e as usize).copied().unwrap_or([0; 4]),
        }
    }
}

impl Launch {
    /// A pixel-shader launch over `width × height` with the position in R0
    /// (the ABI, `docs/abi-r700.md`).
    pub fn pixel_shader(program: Program, width: u32, height: u32) -> Launch {
        Launch {
            position: Some(Gpr::R0),
            ..Launch::new(program, width, height)
        }
    }

    /// A raw run (spec §10): `elements` elements in one row, the given
    /// registers, and `consts` as cb0 elements (also the constant file;
    /// indices at or past [`MAX_CONST_ELEMENTS`] are ignored).
    pub fn raw(
        program: Program,
        elements: u32,
        regs: Vec<(Gpr, RegInit)>,
        consts: &[(u32, [u32; 4])],
    ) -> Launch {
        let mut launch = Launch::new(program, elements, 1);
        launch.regs = regs;
        let n = consts
            .iter()
            .map(|(i, _)| *i as usize + 1)
            .max()
            .unwrap_or(0);
        let mut cb0 = vec![[0u32; 4]; n];
        for &(i, v) in consts {
            cb0[i as usize] = v;
        }
        launch.cfile = cb0.iter().take(256).copied().collect();
        launch.const_buffers = vec![cb0];
        launch
    }

    /// Set cb0 element `n` (a uniform slot). Elements at or past
    /// [`MAX_CONST_ELEMENTS`] do not exist and are ignored (returns false).
    pub fn set_uniform(&mut self, n: u32, value: [u32; 4]) -> bool {
        if n >= MAX_CONST_ELEMENTS {
            return false;
        }
        if self.const_buffers.is_empty() {
            self.const_buffers.push(Vec::new());
        }
        let cb0 = &mut self.const_buffers[0];
        if cb0.len() <= n as usize {
            cb0.resize(n as usize + 1, [0; 4]);
        }
        cb0[n as usize] = value;
        true
    }

    /// Decode raw `.text` bytes (`ctmc run FILE --raw`) for a launch.
    ///
    /// # Errors
    /// The decoder's error for bytes that are not a valid program.
    pub fn decode_raw(bytes: &[u8]) -> Result<Program, ctm_backend_r700::isa::ProgramDecodeError> {
        ctm_backend_r700::isa::decode_program(bytes)
    }
}

/// Elements of a constant buffer (4096 constants per buffer, digest §1.2,
/// L1367-1371). Raw-run constants past it are ignored.
pub const MAX_CONST_ELEMENTS: u32 = 4096;

fn f32_json(bits: u32) -> Value {
    let x = f32::from_bits(bits);
    if x.is_finite() {
        json!(x)
    } else {
        // JSON has no NaN/inf: spell them.
        json!(if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        })
    }
}

/// The raw-run JSON (spec §10): every export target by kind and index,
/// one `[x, y, z, w]` per element (zeros where the element exported
/// nothing), then global memory (kind `memory`, index 0, as four-dword
/// rows) if any memory export ran.
pub fn raw_outputs_json(result: &RunResult) -> Value {
    let mut outputs = Vec::new();
    for ((kind, index), values) in &result.exports {
        let rows: Vec<Value> = values
            .iter()
            .map(|v| Value::Array(v.unwrap_or([0; 4]).iter().map(|&b| f32_json(b)).collect()))
            .collect();
        outputs.push(json!({"kind": kind.name(), "index": index, "values": rows}));
    }
    if result.memory_written {
        let rows: Vec<Value> = result
            .memory
            .chunks(4)
            .map(|c| {
                let mut v = [0u32; 4];
                v[..c.len()].copy_from_slice(c);
                Value::Array(v.iter().map(|&b| f32_json(b)).collect())
            })
            .collect();
        outputs.push(json!({"kind": "memory", "index": 0, "values": rows}));
    }
    json!({ "outputs": outputs })
}

/// The pixel export `index` as f32 rows (zeros where nothing was exported).
pub fn pixel_f32(result: &RunResult, index: u32) -> Vec<[f32; 4]> {
    result.export_f32(ExportKind::Pixel, index)
}

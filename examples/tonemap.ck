/* Tone mapping of a high-dynamic-range image to display values.
   /* Comments nest, as in Rust. */ */

const BANDS: i32 = 0b1000; // posterization bands
const WHITE_POINT: f32 = 4.0f32;
const GAMMA: f32 = 2.2;

fn luminance(c: vec3) -> f32 {
    dot(c, vec3(0.2126, 0.7152, 0.0722))
}

// Extended Reinhard on luminance, then gamma encoding.
fn reinhard(c: vec3, white: f32) -> vec3 {
    let l = luminance(c);
    let mapped = l * (1.0 + l * rcp(white * white)) / (1.0 + l);
    let scaled = c * (mapped / max(l, 1e-6));
    pow(clamp(scaled, 0.0, 1.0), vec3(1.0 / GAMMA))
}

kernel tonemap(
    exposure: f32,
    posterize: bool,
    vignette: f32,
    hdr: In<vec4>,
    ldr: Out<vec4>,
    band: Out<f32>,
) {
    let mut c = reinhard(hdr.rgb * exp2(exposure), WHITE_POINT);
    let l = luminance(c);
    let b = min(trunc(l * BANDS as f32), (BANDS - 1) as f32);
    if posterize && l > 0.0 {
        c *= (b + 0.5) / (BANDS as f32 * l);
    } else if !posterize {
        c = c * c * (3.0 - 2.0 * c);
    }
    let uv = index() / domain() - 0.5;
    c -= vignette * dot(uv, uv) * c;
    ldr = vec4(c, hdr.a);
    // Bands counted from the top, as stops below the white point.
    band = ceil(log2(WHITE_POINT) - b % 4.0);
}

// Converts an 8-bit RGBA image to luminance (quantized to 8 bits, as it
// would be stored) and to its negative (alpha kept).
const LUMA: vec3 = vec3(0.299, 0.587, 0.114);

kernel grayscale(img: In<unorm8x4>, gray: Out<f32>, negative: Out<vec4>) {
    gray = round(dot(img.rgb, LUMA) * 255.0) / 255.0;
    let mut n = img;
    n.rgb = 1.0 - img.rgb;
    negative = n;
}

// Brightness and contrast of an RGBA image, alpha kept.
kernel brighten(gain: f32, bias: f32, img: In<unorm8x4>, r: Out<vec4>) {
    let c = img;
    r = vec4(saturate(c.rgb * gain + bias), c.a);
}

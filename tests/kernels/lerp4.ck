// Cross-fade two images by a mask.
kernel lerp4(a: In<vec4>, b: In<vec4>, mask: In<f32>, r: Out<vec4>) {
    r = mix(a, b, mask);
}

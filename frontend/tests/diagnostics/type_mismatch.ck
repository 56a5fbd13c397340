// expect: CK0020
kernel k(x: In<vec4>, r: Out<f32>) {
    r = x;
}

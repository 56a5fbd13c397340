// expect: CK0024
kernel k(a: In<vec2>, r: Out<f32>) {
    r = a.z;
}

// expect: CK0034
kernel k(a: In<vec3>, r: Out<f32>) {
    r = a.x;
}

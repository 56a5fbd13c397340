// expect: CK0026
kernel k(a: In<vec4>, r: Out<f32>) {
    let n = a as i32;
    r = 0.0;
}

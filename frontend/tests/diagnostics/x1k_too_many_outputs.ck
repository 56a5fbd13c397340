// target: x1k
// expect: CK0062
kernel k(a: In<f32>, r0: Out<f32>, r1: Out<f32>, r2: Out<f32>, r3: Out<f32>, r4: Out<f32>) {
    r0 = a; r1 = a; r2 = a; r3 = a; r4 = a;
}

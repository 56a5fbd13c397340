// expect: CK0002
kernel k(x: In<f32>, r: Out<f32>) {
    r = x; /* this comment /* nests */ and never ends
}

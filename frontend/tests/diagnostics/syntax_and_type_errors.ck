// expect: CK0006 CK0006
kernel k(a: In<f32>, r: Out<f32>) {
    let y = a * ;
    let z = (a + ) * 2.0;
    r = a;
}

// expect: CK0046
kernel k(a: In<f32>) {
    let y = a * 2.0;
}

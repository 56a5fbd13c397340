// A degree-7 polynomial c[0] + c[1] x + ... + c[7] x^7 by Horner's rule,
// with the coefficients in a uniform array.
kernel polynomial(c: [f32; 8], x: In<f32>, r: Out<f32>) {
    let mut acc = c[7];
    for k in 0..7 {
        acc = acc * x + c[6 - k];
    }
    r = acc;
}

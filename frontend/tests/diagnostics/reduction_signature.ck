// expect: CK0048
reduce total(a: f32, b: f32, c: f32) -> f32 {
    a + b + c
}

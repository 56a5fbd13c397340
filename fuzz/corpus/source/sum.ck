// The sum of all elements of a stream.
reduce sum(a: f32, b: f32) -> f32 {
    a + b
}

// Product of a stream.
reduce product(a: f32, b: f32) -> f32 { a * b }

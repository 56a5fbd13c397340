// Largest magnitude of a stream.
reduce maxabs(a: f32, b: f32) -> f32 { max(abs(a), abs(b)) }

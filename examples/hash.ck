// White noise from an integer hash of the element index (Thomas Wang's
// 32-bit hash). Needs native integers: r700 only.
fn wang_hash(x: i32) -> i32 {
    let mut h = (x ^ 61) ^ (x >> 16);
    h += h << 3;
    h ^= h >> 4;
    h *= 0x27d4eb2d;
    h ^ (h >> 15)
}

kernel noise(seed: i32, r: Out<f32>) {
    let p = index();
    let id = (p.y as i32) * (domain().x as i32) + p.x as i32;
    let h = wang_hash(id + seed);
    r = (h & 0xFFFF) as f32 / 65535.0;
}

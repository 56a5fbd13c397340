// Integer hashing (r700): xorshift and the golden-ratio constant.
const GOLDEN: i32 = 0x9E3779B9;

fn hash(x: i32) -> i32 {
    let mut h = x ^ GOLDEN;
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    h = h * 0x2C1B3C6D + 0b1011;
    h & 0x7FFF_FFFF
}

kernel noise(seed: i32, out: Out<f32>) {
    let p = index();
    let i = p.x as i32 + (p.y as i32) * 4096;
    let h = hash(i ^ seed);
    out = (h % 65536) as f32 / 65536.0;
}

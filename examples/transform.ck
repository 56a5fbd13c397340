// Transforms vectors by a 4x4 matrix, as a column (m * v) and as a row
// (v * m, the transpose).
kernel transform(m: mat4, v: In<vec4>, column: Out<vec4>, row: Out<vec4>) {
    column = m * v;
    row = v * m;
}

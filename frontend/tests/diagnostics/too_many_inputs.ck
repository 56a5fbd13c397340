// expect: CK0063
kernel k(i0: In<f32>, i1: In<f32>, i2: In<f32>, i3: In<f32>, i4: In<f32>, i5: In<f32>, i6: In<f32>, i7: In<f32>, i8: In<f32>, i9: In<f32>, i10: In<f32>, i11: In<f32>, i12: In<f32>, i13: In<f32>, i14: In<f32>, i15: In<f32>, i16: In<f32>, r: Out<f32>) {
    r = i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9 + i10 + i11 + i12 + i13 + i14 + i15 + i16;
}

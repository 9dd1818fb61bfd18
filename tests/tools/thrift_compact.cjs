// thrift_compact.cjs - a generic Thrift compact-protocol decoder for tests
// that read Parquet footers, page headers and page indexes without loom.
//   const { tdecode } = require('./thrift_compact.cjs');
//   const { o, end } = tdecode(buf, pos);   // o: struct as {fieldId: value}
// Values: bool, number (i8/i16/i32), BigInt (i64), double, Buffer (binary),
// arrays (list/set) and nested structs as objects; maps are not supported.
'use strict';
function tdecode(buf, pos) {
  const st = { buf, pos };
  const varint = () => { let r = 0n, sh = 0n; for (;;) { const b = st.buf[st.pos++]; r |= BigInt(b & 0x7f) << sh; if (!(b & 0x80)) return r; sh += 7n; } };
  const zz = () => { const v = varint(); return (v >> 1n) ^ -(v & 1n); };
  const val = (t) => {
    switch (t) {
      case 1: return true; case 2: return false;
      case 3: return st.buf[st.pos++] << 24 >> 24;
      case 4: case 5: return Number(zz());
      case 6: return zz();
      case 7: { const d = st.buf.readDoubleLE(st.pos); st.pos += 8; return d; }
      case 8: { const n = Number(varint()); const b = st.buf.subarray(st.pos, st.pos + n); st.pos += n; return b; }
      case 9: case 10: {
        const h = st.buf[st.pos++]; let n = h >> 4; const et = h & 15;
        if (n === 15) n = Number(varint());
        const a = [];
        for (let i = 0; i < n; i++) a.push(et === 1 || et === 2 ? st.buf[st.pos++] === 1 : val(et));
        return a;
      }
      case 12: return struct();
      default: throw new Error('thrift type ' + t + ' at ' + st.pos);
    }
  };
  const struct = () => {
    const o = {}; let last = 0;
    for (;;) {
      const h = st.buf[st.pos++]; if (h === 0) return o;
      const t = h & 15, d = h >> 4;
      const id = d ? last + d : Number(zz());
      last = id; o[id] = val(t);
    }
  };
  const o = struct();
  return { o, end: st.pos };
}

module.exports = { tdecode };

// Reads and writes past a LocalTensor (tests/emu/test_read_past_tensor.py): argv[1] names the
// case; the exit code is the number of failed checks, or 3 when a rule stops the run.
#include <string>
#include "kernel_operator.h"
using namespace AscendC;

int main(int argc, char** argv) {
    std::string which = argv[1];
    int bad = 0;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;      // 8 int32 / 8 float: one 32-byte block
    TBuf<TPosition::VECCALC> next;    // the block after it in UB
    TBuf<TPosition::VECCALC> wide;    // room for a whole rounded-up count
    pipe.InitBuffer(q, 1, 32);
    pipe.InitBuffer(next, 32);
    pipe.InitBuffer(wide, 256);
    LocalTensor<float> after = next.Get<float>();
    Duplicate(after, 5.0f, 8);
    if (which == "cast_rounded_up") {
        LocalTensor<int32_t> idx = q.AllocTensor<int32_t>();
        for (int i = 0; i < 8; ++i) idx.SetValue(i, i + 1);
        LocalTensor<float> f = wide.Get<float>();
        Cast(f, idx, RoundMode::CAST_NONE, 64);  // 64 lanes from an 8-element tensor
        for (int i = 0; i < 8; ++i) bad += f.GetValue(i) != float(i + 1);
        q.FreeTensor(idx);
    } else if (which == "adds_reads_the_next_buffer") {
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 8);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, x, 1.0f, 16);
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 2.0f;
        for (int i = 8; i < 16; ++i) bad += y.GetValue(i) != 6.0f;  // next's 5.0 + 1, as UB holds it
        q.FreeTensor(x);
    } else if (which == "write_past") {  // into next's bytes, which next reads afterwards
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 16);  // overwrites next's bytes
        q.FreeTensor(x);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, after, 1.0f, 8);  // reads next: the overflow destroyed its 5.0
    } else if (which == "write_past_scalar_read") {
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 16);
        q.FreeTensor(x);
        bad += after.GetValue(3) != 5.0f;
    } else if (which == "write_past_into_dead_bytes") {  // next is written again before it is read
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 16);  // overwrites next's bytes
        q.FreeTensor(x);
        Duplicate(after, 7.0f, 8);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, after, 1.0f, 8);
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 8.0f;
    } else if (which == "write_past_partly_rewritten") {  // half of next written again, the other half read
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 16);
        q.FreeTensor(x);
        Duplicate(after, 7.0f, 4);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, after, 1.0f, 8);
    } else if (which == "write_past_into_a_freed_slot") {  // the queue's next slot, allocated again before use
        TQue<TPosition::VECOUT, 2> two;
        pipe.InitBuffer(two, 2, 32);
        LocalTensor<float> a = two.AllocTensor<float>();
        Duplicate(a, 1.0f, 16);  // into the second slot, which nobody holds
        two.FreeTensor(a);
        LocalTensor<float> b = two.AllocTensor<float>();  // the first slot
        LocalTensor<float> c = two.AllocTensor<float>();  // the second: its old bytes are garbage to it
        Duplicate(c, 2.0f, 8);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, c, 1.0f, 8);
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 3.0f;
        two.FreeTensor(b);
        two.FreeTensor(c);
    } else if (which == "write_past_into_never_written_bytes") {  // nothing there to destroy
        TBuf<TPosition::VECCALC> last;
        pipe.InitBuffer(last, 32);
        LocalTensor<float> w = wide.Get<float>();
        Duplicate(w, 1.0f, 72);  // 8 floats past wide, into last, which holds nothing yet
        LocalTensor<float> y = next.Get<float>();
        Adds(y, last.Get<float>(), 1.0f, 8);  // reads what the overflow left there, as the NPU does
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 2.0f;
    } else if (which == "helper_writes_past_then_fills_next") {  // one call site, two tensors
        auto fill = [](const LocalTensor<float>& t, uint32_t n) { Duplicate(t, 9.0f, n); };
        LocalTensor<float> x = q.AllocTensor<float>();
        fill(x, 16);      // past x into next
        fill(after, 8);   // next written again from the same line
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, after, 1.0f, 8);
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 10.0f;
        q.FreeTensor(x);
    } else if (which == "tbuf_get_len") {  // a shorter view of a TBuf filled to the TBuf's end
        LocalTensor<float> t = wide.Get<float>(60);
        Duplicate(t, 1.0f, 64);
        for (int i = 0; i < 64; ++i) bad += wide.Get<float>().GetValue(i) != 1.0f;
    } else if (which == "tbuf_get_len_past_tbuf") {
        LocalTensor<float> t = next.Get<float>(4);
        Duplicate(t, 1.0f, 16);  // 8 floats past the TBuf: into wide's bytes
    } else if (which == "write_into_free_ub") {  // past wide, the last buffer: no buffer owns it
        LocalTensor<float> w = wide.Get<float>();
        LocalTensor<float> tail = w[56];  // the last 8 floats of wide
        Duplicate(tail, 3.0f, 16);        // 8 of them past every buffer
        tail.SetValue(16, 4.0f);          // a scalar write there too
        for (int i = 0; i < 16; ++i) bad += tail.GetValue(i) != 3.0f;  // the bytes hold what was written
        bad += tail.GetValue(16) != 4.0f;
    } else if (which == "write_past_ub_end") {
        TBuf<TPosition::VECCALC> rest;
        pipe.InitBuffer(rest, kernelgen::chip().ub_bytes - 32 - 32 - 256);
        LocalTensor<float> last = rest.Get<float>();
        Duplicate(last[last.GetSize() - 8], 1.0f, 16);  // 32 bytes past the end of UB
    } else if (which == "read_past_ub_end") {
        TBuf<TPosition::VECCALC> rest;
        pipe.InitBuffer(rest, kernelgen::chip().ub_bytes - 32 - 32 - 256);
        LocalTensor<float> last = rest.Get<float>();
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, last[last.GetSize() - 8], 1.0f, 16);  // 32 bytes past the end of UB
    }
    return bad;
}

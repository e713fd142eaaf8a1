package dev.javaep.cuda.kernel.ptx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Writes one {@code .entry} as readable PTX: named registers (declared once, at the top, in order of
 * first use), unique labels, one instruction per line, and comments that say why.
 *
 * <p>Registers are named, not numbered, so the text reads like the Java that wrote it; a helper that
 * runs twice in one kernel (say {@code exp} in two passes) reuses its registers, which is fine because
 * their lives do not overlap.
 */
final class PtxWriter {
    private static final Pattern REGISTER_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_]*");
    /** Special registers a named register must not shadow (PTX ISA 7.0, section 10). */
    private static final Set<String> SPECIAL = Set.of("tid", "ntid", "laneid", "warpid", "nwarpid", "ctaid",
            "nctaid", "smid", "nsmid", "gridid", "clock", "clock64", "globaltimer", "envreg");

    private final CudaKernel kernel;
    private final Map<String, PtxType> registers = new LinkedHashMap<>();
    private final Map<String, Integer> labelCounts = new LinkedHashMap<>();
    private final List<String> shared = new ArrayList<>();
    private final List<String> directives = new ArrayList<>();
    private final StringBuilder body = new StringBuilder();

    PtxWriter(CudaKernel kernel) {
        this.kernel = kernel;
    }

    /** A performance directive placed between the parameter list and the body, e.g. {@code .reqntid 16, 16, 1}. */
    void directive(String text) {
        directives.add(text);
    }

    /** Declares {@code .shared .align 16 .f32 name[count]} in the entry's scope and returns its name. */
    String sharedFloats(String name, int count) {
        shared.add(".shared .align 16 .f32 " + name + "[" + count + "];");
        return name;
    }

    /** Declares (once) a register called {@code %name} of type {@code type} and returns {@code %name}. */
    String reg(PtxType type, String name) {
        if (!REGISTER_NAME.matcher(name).matches() || SPECIAL.contains(name)) {
            throw new IllegalArgumentException("bad register name " + name);
        }
        PtxType before = registers.putIfAbsent(name, type);
        if (before != null && before != type) {
            throw new IllegalStateException(kernel + ": %" + name + " declared " + before + " and " + type);
        }
        return "%" + name;
    }

    /** A label unique in this entry, named after {@code hint}. */
    String label(String hint) {
        int n = labelCounts.merge(hint, 1, Integer::sum);
        return "$L_" + hint + (n == 1 ? "" : "_" + n);
    }

    /** {@code opcode a, b, c;} */
    PtxWriter op(String opcode, String... operands) {
        return instruction("", opcode, operands);
    }

    /** {@code @guard opcode a, b, c;} where guard is a predicate register, optionally with {@code !}. */
    PtxWriter opIf(String guard, String opcode, String... operands) {
        return instruction("@" + guard + " ", opcode, operands);
    }

    /** Appends {@code // text} to the instruction just written. */
    PtxWriter why(String text) {
        body.setLength(body.length() - 1);
        body.append("\t\t// ").append(text).append('\n');
        return this;
    }

    private PtxWriter instruction(String guard, String opcode, String[] operands) {
        body.append('\t').append(guard).append(opcode);
        if (operands.length > 0) {
            body.append(' ').append(String.join(", ", operands));
        }
        body.append(";\n");
        return this;
    }

    PtxWriter bra(String label) {
        return op("bra", label);
    }

    PtxWriter braIf(String predicate, String label) {
        return opIf(predicate, "bra", label);
    }

    void place(String label) {
        body.append(label).append(":\n");
    }

    void comment(String text) {
        body.append("\t// ").append(text).append('\n');
    }

    void blank() {
        body.append('\n');
    }

    /** Loads parameter {@code name} into a register of the same name. */
    String param(PtxType type, String name) {
        String r = reg(type, name);
        op("ld.param" + type.ptx, r, "[" + name + "]");
        return r;
    }

    /** Loads pointer parameter {@code name} and converts it to a global-space address. */
    String globalPointer(String name) {
        String r = reg(PtxType.U64, name);
        op("ld.param.u64", r, "[" + name + "]");
        op("cvta.to.global.u64", r, r);
        return r;
    }

    /**
     * {@code for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += blockDim.x*gridDim.x) body(i)},
     * with {@code i} and the stride in 64 bits.
     */
    void gridStrideLoop(String n, Consumer<String> loopBody) {
        String i = reg(PtxType.U64, "i");
        String stride = reg(PtxType.U64, "stride");
        String tid = reg(PtxType.U32, "tid_x");
        String ntid = reg(PtxType.U32, "ntid_x");
        String ctaid = reg(PtxType.U32, "ctaid_x");
        String nctaid = reg(PtxType.U32, "nctaid_x");
        String past = reg(PtxType.PRED, "past_end");
        String more = reg(PtxType.PRED, "more");
        String loop = label("loop");
        String done = label("loop_done");
        comment("grid-stride loop: i = blockIdx.x*blockDim.x + threadIdx.x; i < " + n
                + "; i += blockDim.x*gridDim.x");
        op("mov.u32", tid, "%tid.x");
        op("mov.u32", ntid, "%ntid.x");
        op("mov.u32", ctaid, "%ctaid.x");
        op("mov.u32", nctaid, "%nctaid.x");
        op("mul.wide.u32", i, ctaid, ntid);
        op("cvt.u64.u32", stride, tid);
        op("add.u64", i, i, stride);
        op("mul.wide.u32", stride, ntid, nctaid);
        op("setp.ge.u64", past, i, n);
        braIf(past, done);
        place(loop);
        loopBody.accept(i);
        op("add.u64", i, i, stride);
        op("setp.lt.u64", more, i, n);
        braIf(more, loop);
        place(done);
    }

    /** The whole entry. */
    String render() {
        StringBuilder s = new StringBuilder();
        s.append("// ").append(kernel.signature()).append('\n');
        s.append(".visible .entry ").append(kernel.entryName()).append("(\n");
        List<KernelParam> params = kernel.params();
        for (int p = 0; p < params.size(); p++) {
            KernelParam param = params.get(p);
            s.append('\t').append(param.kind().ptxDeclaration(param.name()))
                    .append(p + 1 < params.size() ? ",\n" : "\n");
        }
        s.append(")\n");
        for (String d : directives) {
            s.append(d).append('\n');
        }
        s.append("{\n");
        for (PtxType type : PtxType.values()) {
            List<String> names = registers.entrySet().stream()
                    .filter(e -> e.getValue() == type).map(e -> "%" + e.getKey()).toList();
            if (!names.isEmpty()) {
                s.append("\t.reg ").append(type.ptx).append(' ').append(String.join(", ", names)).append(";\n");
            }
        }
        for (String sh : shared) {
            s.append('\t').append(sh).append('\n');
        }
        s.append('\n').append(body).append("}\n");
        return s.toString();
    }

    /** A float immediate in PTX's exact hex form, e.g. {@code 0f3F800000} for 1.0. */
    static String f32(float value) {
        return String.format("0f%08X", Float.floatToRawIntBits(value));
    }

    /** {@code [reg]} */
    static String at(String reg) {
        return "[" + reg + "]";
    }

    /** {@code [reg+offset]} */
    static String at(String reg, long byteOffset) {
        return byteOffset == 0 ? at(reg) : "[" + reg + "+" + byteOffset + "]";
    }

    /** {@code {r0, r1, r2, r3}} */
    static String vec(String... regs) {
        return "{" + String.join(", ", regs) + "}";
    }
}

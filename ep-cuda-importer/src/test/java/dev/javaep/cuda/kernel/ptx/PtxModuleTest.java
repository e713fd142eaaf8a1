package dev.javaep.cuda.kernel.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryForm;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PtxModuleTest {
    private static final String PTX = PtxModule.source();

    @Test
    void startsWithVersionTargetAndAddressSize() {
        List<String> lines = PTX.lines().limit(3).toList();
        assertEquals(List.of(".version " + PtxModule.PTX_ISA, ".target " + PtxModule.TARGET, ".address_size 64"),
                lines);
        assertEquals("sm_52", PtxModule.TARGET);
    }

    @Test
    void isaIsOneEveryDriverFromR535OnAccepts() {
        String[] parts = PtxModule.PTX_ISA.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        assertTrue(major < 8 || (major == 8 && minor <= 2), "PTX ISA " + PtxModule.PTX_ISA + " is newer than 8.2");
    }

    @Test
    void everyKernelHasExactlyOneEntryWithItsParametersInOrder() {
        Pattern entry = Pattern.compile("\\.visible \\.entry (\\w+)\\(\\n((?:\\t[^\\n]*\\n)*?)\\)");
        Matcher m = entry.matcher(PTX);
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
            CudaKernel kernel = CudaKernel.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT));
            List<String> declared = m.group(2).lines().map(String::strip).map(s -> s.replaceAll(",$", "")).toList();
            List<String> expected = kernel.params().stream()
                    .map(p -> p.kind().ptxDeclaration(p.name())).toList();
            assertEquals(expected, declared, kernel.entryName());
        }
        assertEquals(java.util.Arrays.stream(CudaKernel.values()).map(CudaKernel::entryName).toList(), names);
    }

    @Test
    void namesAndSignaturesAreTheOnesTheLauncherUses() {
        assertEquals("ew_add_f32_contig(u64 out, u64 a, u64 b, u64 n)", CudaKernel.EW_ADD_F32_CONTIG.signature());
        assertEquals("ew_div_f32_contig4(u64 out, u64 a, u64 b, u64 n4)", CudaKernel.EW_DIV_F32_CONTIG4.signature());
        assertEquals("ew_sub_f32_bcast(u64 out, u64 a, u64 b, u64 n, u32 rank, .b8 layout[192])",
                CudaKernel.EW_SUB_F32_BCAST.signature());
        assertEquals("un_tanh_f32_v4(u64 out, u64 in, u64 n4)", CudaKernel.UN_TANH_F32_V4.signature());
        assertEquals("softmax_rows_f32(u64 out, u64 in, u64 rows, u64 cols)",
                CudaKernel.SOFTMAX_ROWS_F32.signature());
        assertEquals("softmax_strided_f32(u64 out, u64 in, u64 outer, u64 axis, u64 inner)",
                CudaKernel.SOFTMAX_STRIDED_F32.signature());
        assertEquals("gemm_f32(u64 y, u64 a, u64 b, u64 c, u32 m, u32 n, u32 k, u32 transA, u32 transB, "
                + "f32 alpha, f32 beta, u64 cRowStride, u64 cColStride, u32 hasC, u64 aBatchStride, "
                + "u64 bBatchStride, u64 yBatchStride)", CudaKernel.GEMM_F32.signature());
        assertEquals(21, CudaKernel.values().length);
        for (BinaryOp op : BinaryOp.values()) {
            for (BinaryForm form : BinaryForm.values()) {
                CudaKernel k = CudaKernel.binary(op, form);
                assertEquals(op, k.binaryOp().orElseThrow());
                assertTrue(k.entryName().startsWith("ew_" + op.name().toLowerCase(java.util.Locale.ROOT) + "_f32_"));
            }
        }
        for (UnaryOp op : UnaryOp.values()) {
            assertEquals(op, CudaKernel.unary(op, false).unaryOp().orElseThrow());
            assertEquals(op, CudaKernel.unary(op, true).unaryOp().orElseThrow());
        }
        assertEquals(8, PtxModule.maxRank());
        assertEquals(192, CudaKernel.EW_ADD_F32_BCAST.params().get(5).kind().byteSize());
    }

    @Test
    void usesNothingNewerThanSm52() {
        for (String later : List.of("tanh.approx", ".NaN", "redux.sync", "cp.async", "ld.global.nc.L2", "fma.rn.f16")) {
            assertFalse(PTX.contains(later), later);
        }
        assertFalse(PTX.contains("\0"), "cuModuleLoadData takes a NUL-terminated string");
        assertTrue(PTX.chars().allMatch(c -> c < 128), "PTX is ASCII");
    }

    @Test
    void mathConstantsAreTheIntendedFloats() {
        assertEquals((float) (1 / Math.log(2)), PtxMath.LOG2E);
        assertEquals(Math.log(2), (double) PtxMath.LN2_HI + PtxMath.LN2_LO, 1e-12);
        assertEquals(0, Float.floatToRawIntBits(PtxMath.LN2_HI) & 0x1ff, "j*LN2_HI must be exact");
        assertEquals("0f3F800000", PtxWriter.f32(1f));
        assertEquals("0fFF800000", PtxWriter.f32(Float.NEGATIVE_INFINITY));
    }
}

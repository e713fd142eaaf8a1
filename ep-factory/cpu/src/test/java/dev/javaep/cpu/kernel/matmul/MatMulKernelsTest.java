package dev.javaep.cpu.kernel.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.spi.ops.MatMulOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

class MatMulKernelsTest {
    @Test
    void everySchemaOfTheFamilyHasExactlyOneRow() {
        List<OpSchema> rows = MatMulKernels.rows().stream().map(r -> r.schema()).toList();
        assertEquals(MatMulOps.SCHEMAS, rows);
    }
}

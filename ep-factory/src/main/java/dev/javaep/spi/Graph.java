package dev.javaep.spi;

import java.util.List;

/**
 * A model graph or fused subgraph copied out of ORT: its nodes (in ORT's order) and the values that
 * flow in and out. Valid beyond the call that produced it (it holds no ORT pointers except node ids).
 */
public record Graph(String name, List<Node> nodes, List<ValueInfo> inputs, List<ValueInfo> outputs) {}

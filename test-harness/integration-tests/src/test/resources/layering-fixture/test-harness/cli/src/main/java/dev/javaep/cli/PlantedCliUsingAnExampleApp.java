package dev.javaep.cli;

// A planted layering violation (LayeringTest): the CLI (part of the distribution) uses an example app by its
// qualified name, an arrow that points up: examples depend on the CLI, never the other way.
final class PlantedCliUsingAnExampleApp {
    Object app() {
        return dev.javaep.examples.vulkan.VulkanContext.class;
    }
}

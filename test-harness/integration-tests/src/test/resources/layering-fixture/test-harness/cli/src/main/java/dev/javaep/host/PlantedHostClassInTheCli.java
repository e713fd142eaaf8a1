package dev.javaep.host;

// A planted layering violation (LayeringTest): a class of the host binding's package inside the CLI's module.
final class PlantedHostClassInTheCli {
}

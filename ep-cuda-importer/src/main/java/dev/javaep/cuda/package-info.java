/**
 * JavaCudaExecutionProvider and the CUDA driver binding: not implemented yet. This module exists so
 * the dependency direction (test-harness → ep-cuda-importer → ep-factory) and the distribution's class
 * path are already in place; see the project's issues for the plan.
 */
package dev.javaep.cuda;

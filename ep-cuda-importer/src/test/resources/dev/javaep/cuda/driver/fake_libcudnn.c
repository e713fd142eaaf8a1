/*
 * A stand-in libcudnn for CudnnHandlesTest: every function Cudnn binds, answering success; handles are counted so
 * that the test sees which are alive. No convolution is computed.
 */
#include <stddef.h>
#include <stdint.h>

typedef int cudnnStatus_t;
static long long g_live_handles = 0;
static long long g_handles_made = 0;
static long long g_last_stream = 0;

long long fake_live_handles(void) { return g_live_handles; }
long long fake_last_stream(void) { return g_last_stream; }

size_t cudnnGetVersion(void) { return 91400; }
const char *cudnnGetErrorString(cudnnStatus_t status) { (void) status; return "fake cuDNN error"; }
cudnnStatus_t cudnnCreate(void **handle) { *handle = (void *) (uintptr_t) (0xD000 + ++g_handles_made); g_live_handles++; return 0; }
cudnnStatus_t cudnnDestroy(void *handle) { if ((uintptr_t) handle <= 0xD000) return 3; g_live_handles--; return 0; }
cudnnStatus_t cudnnSetStream(void *handle, void *stream) { (void) handle; g_last_stream = (long long) (uintptr_t) stream; return 0; }

static cudnnStatus_t made(void **out) { *out = (void *) 0xDE5C; return 0; }
cudnnStatus_t cudnnCreateTensorDescriptor(void **d) { return made(d); }
cudnnStatus_t cudnnCreateFilterDescriptor(void **d) { return made(d); }
cudnnStatus_t cudnnCreateConvolutionDescriptor(void **d) { return made(d); }
cudnnStatus_t cudnnDestroyTensorDescriptor(void *d) { (void) d; return 0; }
cudnnStatus_t cudnnDestroyFilterDescriptor(void *d) { (void) d; return 0; }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(void *d) { (void) d; return 0; }
cudnnStatus_t cudnnSetTensorNdDescriptor(void *d, int type, int n, const int *dims, const int *strides) {
    (void) d; (void) type; (void) n; (void) dims; (void) strides; return 0;
}
cudnnStatus_t cudnnSetFilterNdDescriptor(void *d, int type, int format, int n, const int *dims) {
    (void) d; (void) type; (void) format; (void) n; (void) dims; return 0;
}
cudnnStatus_t cudnnSetConvolutionNdDescriptor(void *d, int n, const int *pads, const int *strides, const int *dilations,
                                              int mode, int type) {
    (void) d; (void) n; (void) pads; (void) strides; (void) dilations; (void) mode; (void) type; return 0;
}
cudnnStatus_t cudnnSetConvolutionGroupCount(void *d, int groups) { (void) d; (void) groups; return 0; }
cudnnStatus_t cudnnSetConvolutionMathType(void *d, int math) { (void) d; (void) math; return 0; }
static cudnnStatus_t workspace(size_t *bytes) { *bytes = 0; return 0; }
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int algo, size_t *b) {
    (void) h; (void) x; (void) w; (void) c; (void) y; (void) algo; return workspace(b);
}
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(void *h, void *w, void *dy, void *c, void *dx, int algo, size_t *b) {
    (void) h; (void) w; (void) dy; (void) c; (void) dx; (void) algo; return workspace(b);
}
cudnnStatus_t cudnnConvolutionForward(void *h, const void *a, void *xd, const void *x, void *wd, const void *w, void *c,
                                      int algo, void *ws, size_t wsb, const void *b, void *yd, void *y) {
    (void) h; (void) a; (void) xd; (void) x; (void) wd; (void) w; (void) c; (void) algo; (void) ws; (void) wsb; (void) b;
    (void) yd; (void) y; return 0;
}
cudnnStatus_t cudnnConvolutionBackwardData(void *h, const void *a, void *wd, const void *w, void *dyd, const void *dy,
                                           void *c, int algo, void *ws, size_t wsb, const void *b, void *dxd, void *dx) {
    (void) h; (void) a; (void) wd; (void) w; (void) dyd; (void) dy; (void) c; (void) algo; (void) ws; (void) wsb; (void) b;
    (void) dxd; (void) dx; return 0;
}
cudnnStatus_t cudnnAddTensor(void *h, const void *a, void *bd, const void *b, const void *beta, void *yd, void *y) {
    (void) h; (void) a; (void) bd; (void) b; (void) beta; (void) yd; (void) y; return 0;
}
/* cuDNN's fused convolution + bias + activation (javaep.cuda.fusion=cudnn): present so that the binding loads; a stand-in
   that computes nothing, like the convolutions above. */
cudnnStatus_t cudnnCreateActivationDescriptor(void **d) { return made(d); }
cudnnStatus_t cudnnDestroyActivationDescriptor(void *d) { (void) d; return 0; }
cudnnStatus_t cudnnSetActivationDescriptor(void *d, int mode, int nan, double coef) {
    (void) d; (void) mode; (void) nan; (void) coef; return 0;
}
cudnnStatus_t cudnnConvolutionBiasActivationForward(void *h, const void *a1, void *xd, const void *x, void *wd, const void *w,
                                                    void *c, int algo, void *ws, size_t wsb, const void *a2, void *zd,
                                                    const void *z, void *bd, const void *b, void *act, void *yd, void *y) {
    (void) h; (void) a1; (void) xd; (void) x; (void) wd; (void) w; (void) c; (void) algo; (void) ws; (void) wsb; (void) a2;
    (void) zd; (void) z; (void) bd; (void) b; (void) act; (void) yd; (void) y; return 0;
}

#include "sched/gpu_picker.h"

/* rt_salu.h: scalar ALU semantics (SOP1, SOP2, SOPC, SOPK), pure functions over raw bits. */
#pragma once
#include "rt_base.h"

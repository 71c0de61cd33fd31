/* The hyper-parameter ranges of the Eva drivers (each field an interval, every combination
 * analysed): proofs/eva_adam.c, eva_sgd.c and eva_lion.c state them, proofs/eva_mixed.c
 * reuses them. Static functions for the drivers only. */
#ifndef OPTCERT_EVA_HPARAMS_H
#define OPTCERT_EVA_HPARAMS_H

#include "__fc_builtin.h"
#include "optcert/adam.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"

static oc_adam_hparams adam_hparams(void)
{
    oc_adam_hparams hp;
    hp.profile = (oc_adam_profile)Frama_C_interval(OC_ADAM_TORCH, OC_ADAM_KERAS);
    hp.lr = Frama_C_double_interval(0.0, 1.0);
    hp.beta1 = Frama_C_double_interval(0.0, 0.9999);
    hp.beta2 = Frama_C_double_interval(0.0, 0.9999);
    hp.eps = Frama_C_double_interval(1e-12, 1e-3);
    hp.weight_decay = Frama_C_double_interval(0.0, 1.0);
    hp.eps_root = Frama_C_double_interval(0.0, 1e-3);
    hp.schedule_multiplier = Frama_C_double_interval(0.0, 1.0);
    hp.decoupled = Frama_C_interval(0, 1);
    hp.amsgrad = Frama_C_interval(0, 1);
    hp.maximize = Frama_C_interval(0, 1);
    return hp;
}

static oc_sgd_hparams sgd_hparams(void)
{
    oc_sgd_hparams hp;
    hp.profile = (oc_sgd_profile)Frama_C_interval(OC_SGD_TORCH, OC_SGD_PROFILE_COUNT);
    hp.lr = Frama_C_double_interval(0.0, 1.0);
    hp.momentum = Frama_C_double_interval(0.0, 0.9999);
    hp.dampening = Frama_C_double_interval(0.0, 1.0);
    hp.weight_decay = Frama_C_double_interval(0.0, 1.0);
    hp.nesterov = Frama_C_interval(0, 1);
    hp.maximize = Frama_C_interval(0, 1);
    return hp;
}

static oc_lion_hparams lion_hparams(void)
{
    oc_lion_hparams hp;
    hp.profile = (oc_lion_profile)Frama_C_interval(OC_LION_TORCH, OC_LION_PROFILE_COUNT);
    hp.lr = Frama_C_double_interval(0.0, 1.0);
    hp.beta1 = Frama_C_double_interval(0.0, 0.9999);
    hp.beta2 = Frama_C_double_interval(0.0, 0.9999);
    hp.weight_decay = Frama_C_double_interval(0.0, 10.0);
    return hp;
}

#endif

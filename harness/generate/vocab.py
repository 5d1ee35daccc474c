"""Names and value ranges the built-in table generator draws from (scientific-paper flavour)."""

from __future__ import annotations

METHODS = (
    "ResNet-50", "ResNet-101", "ViT-B/16", "ViT-L/14", "Swin-T", "ConvNeXt-S", "EfficientNet-B3",
    "BERT-base", "RoBERTa-large", "DeBERTa-v3", "T5-small", "GPT-2", "LLaMA-2-7B", "Mistral-7B",
    "CLIP", "BLIP-2", "DINOv2", "MAE", "SimCLR", "MoCo v3", "BYOL", "U-Net", "DeepLabV3+",
    "Mask R-CNN", "DETR", "YOLOv8", "PointNet++", "GCN", "GAT", "GraphSAGE", "LSTM", "GRU",
    "Transformer", "XGBoost", "Random Forest", "SVM", "Logistic Reg.", "k-NN", "NeRF",
    "3DGS", "Mip-NeRF", "Instant-NGP", "PPO", "SAC", "DQN", "TD3", "Whisper", "wav2vec 2.0",
)
OURS = ("Ours", "Ours (full)", "Proposed", "Ours-L", "\\textsc{Ours}")
DATASETS = (
    "CIFAR-10", "CIFAR-100", "ImageNet", "COCO", "ADE20K", "Cityscapes", "KITTI", "nuScenes",
    "SQuAD", "MNLI", "SST-2", "GLUE", "MS MARCO", "WikiText-103", "PubMed", "Cora", "Citeseer",
    "LibriSpeech", "ShapeNet", "ScanNet", "DTU", "LLFF", "MuJoCo", "Atari", "MIMIC-III", "UCI-HAR",
)
# name, low, high, decimals, higher_is_better, percent
METRICS = (
    ("Acc.", 55.0, 96.0, 1, True, False), ("Top-1", 60.0, 88.0, 1, True, False),
    ("F1", 40.0, 92.0, 1, True, False), ("mAP", 25.0, 62.0, 1, True, False),
    ("mIoU", 30.0, 82.0, 1, True, False), ("AUC", 0.70, 0.98, 3, True, False),
    ("BLEU", 18.0, 42.0, 1, True, False), ("PSNR", 22.0, 34.0, 2, True, False),
    ("SSIM", 0.70, 0.97, 3, True, False), ("LPIPS", 0.05, 0.35, 3, False, False),
    ("RMSE", 0.10, 2.50, 2, False, False), ("MAE", 0.05, 1.80, 2, False, False),
    ("WER", 2.0, 18.0, 1, False, True), ("Recall@5", 40.0, 95.0, 1, True, True),
    ("EM", 50.0, 90.0, 1, True, False), ("Err.", 1.0, 25.0, 2, False, True),
)
GROUPS = (
    "Supervised", "Self-supervised", "Zero-shot", "Few-shot", "Fine-tuned", "Baselines",
    "CNN-based", "Transformer-based", "Graph-based", "Open-source", "Closed-source", "Online",
    "Offline", "Linear probe", "Full fine-tuning",
)
SUBGROUPS = ("Small", "Base", "Large", "1-shot", "5-shot", "w/o aug.", "w/ aug.", "$<$7B", "$\\geq$7B")
TASKS = ("Classification", "Detection", "Segmentation", "Retrieval", "Generation", "Reasoning")
HYPER = (
    ("Learning rate", "$\\eta$", "lr"), ("Weight decay", "$\\lambda$", "wd"), ("Batch size", "$B$", "int"),
    ("Warm-up steps", "--", "int"), ("Dropout", "$p$", "frac"), ("Momentum", "$\\beta_1$", "frac"),
    ("Temperature", "$\\tau$", "frac"), ("Hidden size", "$d$", "pow2"), ("Layers", "$L$", "small"),
    ("Heads", "$h$", "small"), ("Epochs", "$E$", "int"), ("Margin", "$\\gamma$", "frac"),
    ("Label smoothing", "$\\epsilon$", "frac"), ("Adam $\\beta_2$", "$\\beta_2$", "frac"),
)
QUANTITIES = (
    ("$T$ (K)", 4.0, 400.0, 1), ("$\\rho$ ($\\mu\\Omega$\\,cm)", 1.0, 900.0, 1),
    ("$E_g$ (eV)", 0.3, 5.5, 2), ("$\\sigma$ (S/m)", 0.0001, 0.9, 4), ("$\\mu$ (cm$^2$/Vs)", 10.0, 1500.0, 0),
    ("$a$ (\\AA)", 3.0, 12.0, 3), ("$\\Delta H$ (kJ/mol)", -400.0, 50.0, 1), ("$\\kappa$ (W/mK)", 0.1, 400.0, 2),
    ("$\\lambda_{\\max}$ (nm)", 250.0, 900.0, 0), ("$\\chi^2$", 0.8, 3.0, 2),
)
SAMPLES = ("Si", "GaAs", "InP", "ZnO", "TiO$_2$", "SrTiO$_3$", "MoS$_2$", "GaN", "CdTe", "Ge",
           "Bi$_2$Se$_3$", "LaAlO$_3$", "BaTiO$_3$", "Al$_2$O$_3$", "Cu$_2$O", "WSe$_2$")
COMPONENTS = ("Attn.", "Aug.", "Pretrain", "Contrast.", "Distill.", "Memory", "Rerank", "Prompt", "MoE")
DOMAINS = ("Vision", "Text", "Speech", "Graph", "Medical", "Robotics", "Tabular", "3D")
FOOTMARKS = ("$^{*}$", "$^{\\dagger}$", "$^{\\ddagger}$", "\\textsuperscript{a}", "$^{\\S}$")
MISSING = ("--", "-", "N/A", "$-$", "--")

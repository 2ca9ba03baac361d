/**
 * Strings of the chat's rich content: attachments in the composer, files and images in replies, reading
 * aloud, tool calls, hand-overs and thoughts. Part of `ChatLabels`, so `<svc-chat>`'s `labels` overrides them.
 */
export interface ContentLabels {
  attach: string;
  removeFile: (name: string) => string;
  uploading: string;
  uploadFailed: (name: string, reason: string) => string;
  fileTooLarge: (name: string, limit: string) => string;
  fileTypeNotAccepted: (name: string) => string;
  fileEmpty: (name: string) => string;
  tooManyFiles: (max: number) => string;
  waitForUploads: string;
  dropFiles: string;
  download: (name: string) => string;
  downloading: string;
  downloadFailed: (name: string) => string;
  readAloud: string;
  pauseReading: string;
  resumeReading: string;
  preparingAudio: string;
  audioFailed: string;
  openImage: string;
  closeImage: string;
  image: string;
  thoughts: string;
  toolInput: (name: string) => string;
  handover: (from: string, to: string, task: string) => string;
}

export const EN_CONTENT_LABELS: ContentLabels = {
  attach: 'Attach files',
  removeFile: (name) => `Remove ${name}`,
  uploading: 'Uploading…',
  uploadFailed: (name, reason) => `${name} could not be uploaded: ${reason}`,
  fileTooLarge: (name, limit) => `${name} is too large: files can be at most ${limit}.`,
  fileTypeNotAccepted: (name) => `${name} is a kind of file this chat does not accept.`,
  fileEmpty: (name) => `${name} is empty.`,
  tooManyFiles: (max) => `You can attach at most ${max} files to one message.`,
  waitForUploads: 'Wait until the files are uploaded.',
  dropFiles: 'Drop files to attach them',
  download: (name) => `Download ${name}`,
  downloading: 'Downloading…',
  downloadFailed: (name) => `${name} could not be downloaded. Try again.`,
  readAloud: 'Read aloud',
  pauseReading: 'Pause reading',
  resumeReading: 'Resume reading',
  preparingAudio: 'Preparing audio…',
  audioFailed: 'This reply could not be read aloud.',
  openImage: 'Open the image larger',
  closeImage: 'Close',
  image: 'Image',
  thoughts: 'Thoughts',
  toolInput: (name) => `Used ${name}`,
  handover: (from, to, task) => `${from} handed over to ${to}: ${task}`,
};

export const ZH_CONTENT_LABELS: ContentLabels = {
  attach: '添加附件',
  removeFile: (name) => `移除 ${name}`,
  uploading: '上传中…',
  uploadFailed: (name, reason) => `${name} 上传失败：${reason}`,
  fileTooLarge: (name, limit) => `${name} 太大了：文件最大 ${limit}。`,
  fileTypeNotAccepted: (name) => `此对话不接受 ${name} 这类文件。`,
  fileEmpty: (name) => `${name} 是空文件。`,
  tooManyFiles: (max) => `每条消息最多添加 ${max} 个文件。`,
  waitForUploads: '请等待文件上传完成。',
  dropFiles: '松开即可添加文件',
  download: (name) => `下载 ${name}`,
  downloading: '下载中…',
  downloadFailed: (name) => `${name} 下载失败，请重试。`,
  readAloud: '朗读',
  pauseReading: '暂停朗读',
  resumeReading: '继续朗读',
  preparingAudio: '正在准备语音…',
  audioFailed: '无法朗读这条回复。',
  openImage: '查看大图',
  closeImage: '关闭',
  image: '图片',
  thoughts: '思考过程',
  toolInput: (name) => `使用了 ${name}`,
  handover: (from, to, task) => `${from} 转交给 ${to}：${task}`,
};

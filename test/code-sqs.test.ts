/**
 * Amazon SQS links, one rule per test, on small Kotlin estates written here and indexed on this thread:
 * `@SqsListener` queues (a name, or an id of hmpps-sqs's queue registry read through `hmpps.sqs.queues.<id>`),
 * sends through the AWS SDK's `SqsAsyncClient.sendMessage(SendMessageRequest…queueUrl(q)…build())` inside helpers
 * (extension functions included), attributed to the method that chooses the queue, and a base class whose queue
 * id each subclass passes to its constructor: one send per subclass.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function index(files: Record<string, string>) {
  const dir = writeEstate(files, 'sextant-sqs-');
  dirs.push(dir);
  return buildEstate(dir);
}

const K = 'src/main/kotlin/p/';
const BUILD = { 'build.gradle.kts': 'plugins { id("org.springframework.boot") }\n' };
const APP = `package p\n@org.springframework.boot.autoconfigure.SpringBootApplication\nclass App\n`;
const HELPERS = `package p
import software.amazon.awssdk.services.sqs.SqsAsyncClient
import software.amazon.awssdk.services.sqs.model.SendMessageRequest
import software.amazon.awssdk.services.sqs.model.SendMessageResponse
import uk.gov.justice.hmpps.sqs.HmppsQueue
import uk.gov.justice.hmpps.sqs.eventTypeMessageAttributes

val DEFAULT_RETRY_TEMPLATE = org.springframework.retry.support.RetryTemplate()

internal fun SqsAsyncClient.sendMessage(queueUrl: String, eventType: String, message: String, retryTemplate: org.springframework.retry.support.RetryTemplate): SendMessageResponse = runCatching {
  retryTemplate.execute<SendMessageResponse, Exception> {
    sendMessage(
      SendMessageRequest.builder().queueUrl(queueUrl)
        .messageBody(message)
        .eventTypeMessageAttributes(eventType)
        .build(),
    ).get()
  }
}.onFailure {
  println("failed")
}.getOrThrow()

internal fun HmppsQueue.sendMessage(eventType: String, message: String, retryTemplate: org.springframework.retry.support.RetryTemplate = DEFAULT_RETRY_TEMPLATE) = this.sqsClient.sendMessage(this.queueUrl, eventType = eventType, message = message, retryTemplate = retryTemplate)
`;
const QUEUE_SERVICE = `package p
import org.springframework.stereotype.Service
import uk.gov.justice.hmpps.sqs.HmppsQueue
import uk.gov.justice.hmpps.sqs.HmppsQueueService

@Service
class QueueService(private val hmppsQueueService: HmppsQueueService) {
  fun sendMessageTrackOnFailure(queueId: String, eventType: String, message: Any) {
    val queue = hmppsQueueService.findByQueueId(queueId)!!
    queue.sendMessage(eventType = eventType, message = message.toString())
  }
  fun sendMessageThrowOnFailure(queue: HmppsQueue, eventType: String, message: Any) = queue.sendMessage(eventType = eventType, message = message.toString())
}
`;
const CONFIG = `spring.application.name: sync
hmpps.sqs:
  queues:
    visits:
      queueName: visits_queue
    fromdps:
      queueName: from_dps_queue
`;

/** The service, its helpers and its QueueService: what each send test adds its caller to. */
const SENDING: Record<string, string> = {
  ...BUILD,
  [`${K}App.kt`]: APP,
  [`${K}QueueHelpers.kt`]: HELPERS,
  [`${K}QueueService.kt`]: QUEUE_SERVICE,
  'src/main/resources/application.yml': CONFIG,
};

function producers(nodes: readonly NodeRecord[]): string[] {
  return nodes
    .filter((n) => n.kind === 'producer')
    .map((n) => `${n.qualified_name} [${n.props.framework}] ${String(n.props.caller).replace(/^p\./, '')}:${n.line}${n.props.resolved === false ? ` unresolved: ${n.props.unresolved_reason}` : ''}`)
    .sort();
}

function listeners(nodes: readonly NodeRecord[]): string[] {
  return nodes
    .filter((n) => n.kind === 'route' && n.props.protocol === 'sqs')
    .map((n) => `${n.qualified_name} [${n.props.framework}]${n.props.resolved === false ? ' unresolved' : ''}`)
    .sort();
}

describe('SQS', () => {
  test('@SqsListener names its queue, or an id of the hmpps-sqs registry that configuration names', async () => {
    const built = await index({
      ...BUILD,
      [`${K}App.kt`]: APP,
      [`${K}Listeners.kt`]: `package p
import io.awspring.cloud.sqs.annotation.SqsListener
import org.springframework.stereotype.Service

@Service
class Listeners {
  @SqsListener("visits", factory = "hmppsQueueContainerFactoryProxy")
  fun onVisit(raw: String) {}
  @SqsListener(queueNames = ["plain_queue"])
  fun onPlain(raw: String) {}
  @SqsListener("unknownid", factory = "hmppsQueueContainerFactoryProxy")
  fun onUnknown(raw: String) {}
}
`,
      'src/main/resources/application.yml': CONFIG,
    });
    assert.deepEqual(listeners(built.nodes), ['sync sqs plain_queue [spring_cloud_aws]', 'sync sqs visits_queue [spring_cloud_aws]', 'sync sqs ${hmpps.sqs.queues.unknownid.queueName} [spring_cloud_aws] unresolved'].sort());
  });

  test('a send through helpers and extension functions belongs to the method that names the queue id', async () => {
    const built = await index({
      ...SENDING,
      [`${K}Court.kt`]: `package p
import org.springframework.stereotype.Service
@Service
class Court(private val queueService: QueueService) {
  fun resync(id: String) {
    queueService.sendMessageTrackOnFailure(queueId = "fromdps", eventType = "court.resync", message = id)
  }
}
`,
    });
    assert.deepEqual(producers(built.nodes), ['sync -> sqs from_dps_queue [aws_sdk] Court#resync(String):6']);
  });

  test('a base class sends to the queue id each subclass passes to its constructor: one send per subclass', async () => {
    const built = await index({
      ...SENDING,
      [`${K}RetryQueueService.kt`]: `package p
import uk.gov.justice.hmpps.sqs.HmppsQueue
import uk.gov.justice.hmpps.sqs.HmppsQueueService

open class RetryQueueService(
  private val queueId: String,
  private val hmppsQueueService: HmppsQueueService,
  private val queueService: QueueService,
) {
  private val queue by lazy { hmppsQueueService.findByQueueId(queueId) as HmppsQueue }

  fun sendMessage(mapping: Any) {
    queueService.sendMessageThrowOnFailure(queue, "RETRY", mapping)
  }
}
`,
      [`${K}VisitsRetryQueueService.kt`]: `package p
import org.springframework.stereotype.Service
import uk.gov.justice.hmpps.sqs.HmppsQueueService
@Service
class VisitsRetryQueueService(hmppsQueueService: HmppsQueueService, queueService: QueueService) : RetryQueueService(queueId = "visits", hmppsQueueService = hmppsQueueService, queueService = queueService)
`,
      [`${K}DpsRetryQueueService.kt`]: `package p
import org.springframework.stereotype.Service
import uk.gov.justice.hmpps.sqs.HmppsQueueService
@Service
class DpsRetryQueueService(hmppsQueueService: HmppsQueueService, queueService: QueueService) : RetryQueueService("fromdps", hmppsQueueService, queueService)
`,
    });
    assert.deepEqual(producers(built.nodes), ['sync -> sqs from_dps_queue [aws_sdk] RetryQueueService#sendMessage(Any):13', 'sync -> sqs visits_queue [aws_sdk] RetryQueueService#sendMessage(Any):13']);
  });
});
